package install

import "regexp"

// What a registry entry or an API caller names reaches npm's argument
// list only once it passed these checks: a package name as npm's rules
// allow it, and an exact version or a dist-tag of safe characters —
// never a flag ("--registry=…"), a URL, a path ("file:…"), a git
// remote ("git+ssh:…") nor an alias ("npm:…"). Install and Latest also put
// "--" before the package, so npm reads it as nothing but a package.

// packagePattern is a package name by npm's rules (validate-npm-package-name
// for new packages): lowercase, URL-safe, not starting with "." or "_" (nor
// "-"), an optional "@scope/" and no other "/" or ":".
var packagePattern = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*$`)

// tagPattern is a dist-tag ("latest", "next", "beta-2") or a major ("22").
var tagPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidPackage reports whether name is an npm package name Install and
// Latest accept (at most 214 bytes, as npm allows).
func ValidPackage(name string) bool {
	return len(name) <= 214 && packagePattern.MatchString(name)
}

// ValidVersionOrTag reports whether v is an exact version (ValidVersion)
// or a dist-tag of safe characters.
func ValidVersionOrTag(v string) bool {
	return ValidVersion(v) || tagPattern.MatchString(v)
}
