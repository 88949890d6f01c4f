#!/usr/bin/env bash
# make package: the Debian package and the tarball of the built binaries.
#
#   VERSION=<version> bash build/linux/package.sh
#
# Reads build/bin/switchboard (the window, every subcommand),
# build/bin/switchboard-tray and build/bin/switchboard-headless (make build
# headless made them, stamped with VERSION) and writes
#
#   build/dist/switchboard_<VERSION>_<arch>.deb
#       /usr/bin/switchboard, /usr/bin/switchboard-tray,
#       /usr/share/applications/switchboard.desktop (Exec=switchboard),
#       /usr/share/icons/hicolor/<N>x<N>/apps/switchboard.png,
#       /usr/share/doc/switchboard/{copyright,README.md},
#       /usr/lib/switchboard/switchboard-headless-linux-{amd64,arm64} (what
#       the app installs on hosts, make host-builds);
#       Depends: as dpkg-shlibdeps computes it from the two binaries.
#       No maintainer scripts: dpkg's triggers of hicolor-icon-theme and
#       desktop-file-utils refresh the icon cache and the menu. No autostart
#       entry: Settings → "Start the tray at login" writes the user's own.
#   build/dist/switchboard_<VERSION>_linux_<arch>.tar.gz
#       switchboard_<VERSION>/bin/{switchboard,switchboard-tray,switchboard-headless},
#       lib/switchboard/switchboard-headless-linux-{amd64,arm64},
#       share/ as above, README.md, LICENSE.
#
# Built with Debian's own tools (dpkg-deb, dpkg-shlibdeps): docs/DECISIONS.md
# (ADR 0011) says why no Go packager.
set -euo pipefail
cd "$(dirname "$0")/../.."

: "${VERSION:?set VERSION (build/version.sh prints it)}"
arch=$(dpkg --print-architecture)
bins=(build/bin/switchboard build/bin/switchboard-tray build/bin/switchboard-headless
  build/bin/switchboard-headless-linux-amd64 build/bin/switchboard-headless-linux-arm64)
# hostbins DIR: the builds for hosts, beside the app (hub/hosts.Binaries
# looks in <bin>/../lib/switchboard).
hostbins() {
  for a in amd64 arm64; do
    install -Dm755 "build/bin/switchboard-headless-linux-$a" "$1/switchboard-headless-linux-$a"
  done
}
for b in "${bins[@]}"; do
  [ -x "$b" ] || { echo "package: $b is missing: run make build headless first" >&2; exit 1; }
done
# The binaries must be the version being packaged.
got=$(build/bin/switchboard-headless version | head -1)
[ "$got" = "switchboard $VERSION" ] || { echo "package: build/bin/switchboard-headless says '$got', want 'switchboard $VERSION'" >&2; exit 1; }

dist=build/dist
mkdir -p "$dist"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# share/: the .desktop entry and the icons, as both the .deb and the
# tarball lay them out.
share() { # share DIR: fill DIR (a usr/share or a share folder)
  install -Dm644 build/linux/switchboard.desktop "$1/applications/switchboard.desktop"
  for png in build/linux/icons/*/switchboard.png; do
    size=$(basename "$(dirname "$png")")
    install -Dm644 "$png" "$1/icons/hicolor/$size/apps/switchboard.png"
  done
}

# ---- the .deb
root=$tmp/deb
install -Dm755 build/bin/switchboard "$root/usr/bin/switchboard"
install -Dm755 build/bin/switchboard-tray "$root/usr/bin/switchboard-tray"
share "$root/usr/share"
hostbins "$root/usr/lib/switchboard"
install -Dm644 README.md "$root/usr/share/doc/switchboard/README.md"
{
  echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
  echo "Upstream-Name: switchboard"
  echo
  echo "Files: *"
  echo "License: MIT"
  sed 's/^$/./; s/^/ /' LICENSE
} >"$root/usr/share/doc/switchboard/copyright"
find "$root" -type d -exec chmod 0755 {} + # whatever the umask made them

# dpkg-shlibdeps reads debian/control for the package's name: give it one.
mkdir -p "$tmp/shlibs/debian"
printf 'Source: switchboard\n\nPackage: switchboard\nArchitecture: any\n' >"$tmp/shlibs/debian/control"
depends=$(cd "$tmp/shlibs" && dpkg-shlibdeps -O -e"$root/usr/bin/switchboard" -e"$root/usr/bin/switchboard-tray" 2>"$tmp/shlibdeps.log" \
  | sed -n 's/^shlibs:Depends=//p') || { cat "$tmp/shlibdeps.log" >&2; exit 1; }
[ -n "$depends" ] || { cat "$tmp/shlibdeps.log" >&2; echo "package: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

installed_size=$(du -sk --apparent-size "$root/usr" | cut -f1)
mkdir -p "$root/DEBIAN"
cat >"$root/DEBIAN/control" <<CONTROL
Package: switchboard
Version: $VERSION
Architecture: $arch
Maintainer: Switchboard authors <switchboard@users.noreply.github.com>
Installed-Size: $installed_size
Depends: $depends
Recommends: xdg-utils
Section: devel
Priority: optional
Homepage: https://github.com/switchboard-hub/switchboard
Description: desktop hub for coding agents (Agent Client Protocol)
 Switchboard launches coding agents that speak the Agent Client Protocol
 (Claude Code, Codex, Gemini CLI, Qwen Code, OpenCode, ...), keeps every
 thread and event in SQLite, streams turns to its window and to a
 localhost HTTP/SSE API, and puts every permission an agent asks for in
 front of the user: window, tray, desktop notification or editor.
CONTROL
deb="$dist/switchboard_${VERSION}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "package: $deb ($(du -h "$deb" | cut -f1)), Depends: $depends"

# ---- the tarball: the same plus the headless binary
name="switchboard_${VERSION}"
tree=$tmp/tar/$name
install -Dm755 build/bin/switchboard "$tree/bin/switchboard"
install -Dm755 build/bin/switchboard-tray "$tree/bin/switchboard-tray"
install -Dm755 build/bin/switchboard-headless "$tree/bin/switchboard-headless"
hostbins "$tree/lib/switchboard"
share "$tree/share"
install -Dm644 README.md "$tree/README.md"
install -Dm644 LICENSE "$tree/LICENSE"
tarball="$dist/switchboard_${VERSION}_linux_${arch}.tar.gz"
tar -C "$tmp/tar" --sort=name --owner=0 --group=0 --numeric-owner -czf "$tarball" "$name"
echo "package: $tarball ($(du -h "$tarball" | cut -f1))"
