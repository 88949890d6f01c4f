package config

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// withKeyLines rewrites a decoding error of viper's (mapstructure's) into
// one line per problem that names the key and its line in data:
// "line 3: unknown key permissions.timout". It returns err unchanged when
// it cannot.
func withKeyLines(err error, data []byte) error {
	msg := err.Error()
	const header = "decoding failed due to the following error(s):"
	body, ok := strings.CutPrefix(msg, header)
	if !ok {
		return err
	}
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil {
		return err
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
		m := decodeErrLine.FindStringSubmatch(l)
		if m == nil {
			out = append(out, l)
			continue
		}
		prefix := strings.NewReplacer("[", ".", "]", "").Replace(m[1])
		if bad, ok := strings.CutPrefix(m[2], "has invalid keys: "); ok {
			for _, k := range strings.Split(bad, ", ") {
				key := strings.TrimPrefix(prefix+"."+k, ".")
				out = append(out, lineOf(&root, key)+"unknown key "+key)
			}
			continue
		}
		out = append(out, lineOf(&root, prefix)+prefix+": "+m[2])
	}
	return errors.New(strings.Join(out, "; "))
}

var decodeErrLine = regexp.MustCompile(`^'([^']*)' (.*)$`)

// lineOf returns "line N: " for the dotted key in the YAML document root
// (keys compared case-insensitively, as viper does), or "".
func lineOf(root *yaml.Node, key string) string {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := 0
	for _, part := range strings.Split(key, ".") {
		if i, err := strconv.Atoi(part); err == nil && n.Kind == yaml.SequenceNode {
			if i < 0 || i >= len(n.Content) {
				return ""
			}
			n = n.Content[i]
			line = n.Line
			continue
		}
		if n.Kind != yaml.MappingNode {
			return ""
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if strings.EqualFold(n.Content[i].Value, part) {
				line, next = n.Content[i].Line, n.Content[i+1]
				break
			}
		}
		if next == nil {
			return ""
		}
		n = next
	}
	return fmt.Sprintf("line %d: ", line)
}

// syntaxLine corrects the line of a YAML syntax error: yaml.v3 reports
// parser errors one line early (a 0-based line) and some scanner errors
// without a line ("mapping values are not allowed in this context"). The
// line is taken to be the first at which a prefix of data stops parsing,
// unless yaml's own is later.
func syntaxLine(err error, data []byte) error {
	lines := strings.SplitAfter(string(data), "\n")
	first := 0
	for i := range lines {
		var v any
		if yaml.Unmarshal([]byte(strings.Join(lines[:i+1], "")), &v) != nil {
			first = i + 1
			break
		}
	}
	if first == 0 {
		return err
	}
	msg := err.Error()
	m := yamlLine.FindStringSubmatchIndex(msg)
	if m == nil {
		return &lineError{fmt.Sprintf("line %d: %s", first, msg), err}
	}
	if n, _ := strconv.Atoi(msg[m[2]:m[3]]); n >= first {
		return err
	}
	return &lineError{msg[:m[2]] + strconv.Itoa(first) + msg[m[3]:], err}
}

var yamlLine = regexp.MustCompile(`line (\d+): `)

// lineError is an error with its message corrected.
type lineError struct {
	msg string
	err error
}

func (e *lineError) Error() string { return e.msg }
func (e *lineError) Unwrap() error { return e.err }
