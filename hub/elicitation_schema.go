package hub

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Bounds on what an agent may ask (a hostile agent's schema must not
// bury the window or the store).
const (
	MaxElicitationSchemaBytes = 64 << 10 // the requestedSchema as sent
	MaxElicitationFields      = 50
	MaxElicitationEnum        = 200 // choices of one enum
	MaxElicitationText        = 8 << 10
	MaxElicitationURL         = 4096
	MaxElicitationPattern     = 1024
)

// ElicitationSchema is the form an agent asks for: a flat object of
// primitive fields (ACP ElicitationSchema). Properties keep the agent's
// order.
type ElicitationSchema struct {
	Type        string                `json:"type"` // always "object"
	Title       string                `json:"title,omitempty"`
	Description string                `json:"description,omitempty"`
	Properties  ElicitationProperties `json:"properties"`
	Required    []string              `json:"required,omitempty"`
}

// ElicitationProperty is one field: type string (optionally an enum, or
// oneOf titled choices), number, integer or boolean.
type ElicitationProperty struct {
	Name        string            `json:"-"`
	Type        string            `json:"type"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Enum        []string          `json:"enum,omitempty"`
	OneOf       []ElicitationEnum `json:"oneOf,omitempty"`
	Default     json.RawMessage   `json:"default,omitempty"`
	Minimum     *float64          `json:"minimum,omitempty"`
	Maximum     *float64          `json:"maximum,omitempty"`
	MinLength   *int              `json:"minLength,omitempty"`
	MaxLength   *int              `json:"maxLength,omitempty"`
	// Format of a string: "email", "uri", "date" (YYYY-MM-DD) or
	// "date-time" (RFC 3339); another is dropped.
	Format string `json:"format,omitempty"`
	// Pattern a string must match (unanchored, as in JSON Schema),
	// checked by the hub with Go's RE2 (linear time, whatever the
	// agent wrote); one RE2 cannot compile (a look-ahead, a
	// back-reference) or longer than MaxElicitationPattern is dropped.
	// The window does not run it: a browser's regexp engine
	// backtracks, and an agent's pattern could hang the window.
	Pattern string         `json:"pattern,omitempty"`
	re      *regexp.Regexp // Pattern compiled
}

// ElicitationEnum is a titled choice of a string field.
type ElicitationEnum struct {
	Const string `json:"const"`
	Title string `json:"title,omitempty"`
}

// ElicitationProperties are a form's fields in the agent's order; they
// marshal as a JSON object.
type ElicitationProperties []ElicitationProperty

// MarshalJSON writes the fields as one object, in order.
func (ps ElicitationProperties) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.Name)
		v, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an object of fields, keeping their order.
func (ps *ElicitationProperties) UnmarshalJSON(data []byte) error {
	d := json.NewDecoder(bytes.NewReader(data))
	t, err := d.Token()
	if err != nil {
		return err
	}
	if t == nil {
		*ps = nil
		return nil
	}
	if t != json.Delim('{') {
		return fmt.Errorf("properties must be an object")
	}
	var out ElicitationProperties
	for d.More() {
		kt, err := d.Token()
		if err != nil {
			return err
		}
		var p ElicitationProperty
		if err := d.Decode(&p); err != nil {
			return fmt.Errorf("property %q: %w", kt, err)
		}
		p.Name, _ = kt.(string)
		out = append(out, p)
	}
	*ps = out
	_, err = d.Token()
	return err
}

// Field returns the field named name.
func (s *ElicitationSchema) Field(name string) (ElicitationProperty, bool) {
	for _, p := range s.Properties {
		if p.Name == name {
			return p, true
		}
	}
	return ElicitationProperty{}, false
}

// fieldError is INVALID_ARGUMENT naming the field (details.field).
func fieldError(field, format string, args ...any) *Error {
	e := Errorf(CodeInvalidArgument, "%s: "+format, append([]any{field}, args...)...)
	e.Details = map[string]any{"field": field}
	return e
}

// ParseElicitationSchema reads and checks an agent's requestedSchema: at
// most MaxElicitationSchemaBytes, type "object", at most
// MaxElicitationFields fields, each of type string, number, integer or
// boolean (a string may be an enum), required naming only its fields.
// Anything else (nested objects, arrays, unknown types) is an error naming
// the field: the agent is refused, nothing is shown. Keywords the hub does
// not check are dropped, as are a format or pattern it cannot check
// (ElicitationProperty).
func ParseElicitationSchema(raw json.RawMessage) (*ElicitationSchema, error) {
	if len(raw) > MaxElicitationSchemaBytes {
		return nil, fieldError("requestedSchema", "larger than %d bytes", MaxElicitationSchemaBytes)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, fieldError("requestedSchema", "missing")
	}
	var s ElicitationSchema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fieldError("requestedSchema", "not a valid schema: %v", err)
	}
	if s.Type == "" {
		s.Type = "object"
	}
	if s.Type != "object" {
		return nil, fieldError("requestedSchema.type", "must be \"object\", not %q", s.Type)
	}
	if len(s.Properties) > MaxElicitationFields {
		return nil, fieldError("requestedSchema.properties", "more than %d fields", MaxElicitationFields)
	}
	s.Title, s.Description = clip(s.Title), clip(s.Description)
	seen := map[string]bool{}
	for i := range s.Properties {
		p := &s.Properties[i]
		f := "requestedSchema.properties." + p.Name
		if p.Name == "" || len(p.Name) > 128 || !utf8.ValidString(p.Name) {
			return nil, fieldError("requestedSchema.properties", "a field name must be 1 to 128 bytes of UTF-8")
		}
		if seen[p.Name] {
			return nil, fieldError(f, "defined twice")
		}
		seen[p.Name] = true
		switch p.Type {
		case "string", "number", "integer", "boolean":
		default:
			return nil, fieldError(f, "unsupported type %q (string, number, integer or boolean)", p.Type)
		}
		if (len(p.Enum) > 0 || len(p.OneOf) > 0) && p.Type != "string" {
			return nil, fieldError(f, "only a string field may be an enum")
		}
		if len(p.Enum)+len(p.OneOf) > MaxElicitationEnum {
			return nil, fieldError(f, "more than %d choices", MaxElicitationEnum)
		}
		p.Title, p.Description = clip(p.Title), clip(p.Description)
		checkable(p)
		if len(p.Default) > 0 {
			if err := checkValue(f, *p, p.Default); err != nil {
				p.Default = nil // a default the field refuses is dropped
			}
		}
	}
	for _, r := range s.Required {
		if !seen[r] {
			return nil, fieldError("requestedSchema.required", "names %q, which is not a field", r)
		}
	}
	return &s, nil
}

// checkable keeps p's format and pattern only where the hub checks them:
// on a string field, a known format, a pattern RE2 compiles.
func checkable(p *ElicitationProperty) {
	if p.Type != "string" {
		p.Format, p.Pattern = "", ""
		return
	}
	switch p.Format {
	case "email", "uri", "date", "date-time":
	default:
		p.Format = ""
	}
	if p.Pattern == "" {
		return
	}
	re, err := regexp.Compile(p.Pattern)
	if err != nil || len(p.Pattern) > MaxElicitationPattern {
		p.Pattern = ""
		return
	}
	p.re = re
}

// formatError says how s fails format, "" when it does not.
func formatError(format, s string) string {
	switch format {
	case "email":
		at := strings.LastIndexByte(s, '@')
		if at <= 0 || at == len(s)-1 || strings.ContainsFunc(s, unicode.IsSpace) {
			return "must be an email address"
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" || strings.ContainsFunc(s, unicode.IsSpace) {
			return "must be an absolute URI (with a scheme, such as https:)"
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return "must be a date (YYYY-MM-DD)"
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return "must be a date and time (RFC 3339, such as 2026-11-25T16:00:00Z)"
		}
	}
	return ""
}

// clip bounds an agent's text to MaxElicitationText bytes.
func clip(s string) string {
	if len(s) <= MaxElicitationText {
		return s
	}
	s = s[:MaxElicitationText]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// ClipElicitationMessage bounds an agent's message as clip does.
func ClipElicitationMessage(s string) string { return clip(s) }

// CheckElicitationURL checks a URL-mode elicitation's link: an absolute
// http or https URL with a host, no user info (https://good@evil), at most
// MaxElicitationURL bytes. javascript:, data:, file: and the like are
// refused.
func CheckElicitationURL(raw string) error {
	if raw == "" {
		return fieldError("url", "missing")
	}
	if len(raw) > MaxElicitationURL {
		return fieldError("url", "longer than %d bytes", MaxElicitationURL)
	}
	if strings.ContainsAny(raw, " \t\r\n\x00") {
		return fieldError("url", "contains white space or control characters")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fieldError("url", "not a URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fieldError("url", "scheme %q refused (http or https only)", u.Scheme)
	}
	if u.Host == "" || u.Hostname() == "" {
		return fieldError("url", "has no host")
	}
	if u.User != nil {
		return fieldError("url", "user info in a URL is refused")
	}
	return nil
}

// CheckElicitationContent checks a form's answer against s: every field
// known, every required field present, each value of its field's type
// (an enum one of its choices, lengths and bounds kept). The error names
// the first field that fails (details.field).
func CheckElicitationContent(s *ElicitationSchema, content map[string]json.RawMessage) error {
	for k := range content {
		if _, ok := s.Field(k); !ok {
			return fieldError("content."+k, "not a field of the form")
		}
	}
	for _, r := range s.Required {
		if v, ok := content[r]; !ok || string(bytes.TrimSpace(v)) == "null" {
			return fieldError("content."+r, "required")
		}
	}
	for _, p := range s.Properties {
		v, ok := content[p.Name]
		if !ok {
			continue
		}
		if err := checkValue("content."+p.Name, p, v); err != nil {
			return err
		}
	}
	return nil
}

// checkValue checks one value against its field.
func checkValue(f string, p ElicitationProperty, v json.RawMessage) error {
	v = bytes.TrimSpace(v)
	switch p.Type {
	case "string":
		var s string
		if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
			return fieldError(f, "must be a string")
		}
		n := utf8.RuneCountInString(s)
		if p.MinLength != nil && n < *p.MinLength {
			return fieldError(f, "shorter than %d characters", *p.MinLength)
		}
		if p.MaxLength != nil && n > *p.MaxLength {
			return fieldError(f, "longer than %d characters", *p.MaxLength)
		}
		if msg := formatError(p.Format, s); msg != "" {
			return fieldError(f, "%s", msg)
		}
		if p.re != nil && !p.re.MatchString(s) {
			return fieldError(f, "does not match the pattern %s", p.Pattern)
		}
		if len(p.Enum) > 0 || len(p.OneOf) > 0 {
			for _, c := range p.Enum {
				if c == s {
					return nil
				}
			}
			for _, c := range p.OneOf {
				if c.Const == s {
					return nil
				}
			}
			return fieldError(f, "%q is not one of the choices", s)
		}
	case "boolean":
		if string(v) != "true" && string(v) != "false" {
			return fieldError(f, "must be true or false")
		}
	case "number", "integer":
		var x float64
		if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) || json.Unmarshal(v, &x) != nil {
			return fieldError(f, "must be a number")
		}
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fieldError(f, "must be a finite number")
		}
		if p.Type == "integer" && x != math.Trunc(x) {
			return fieldError(f, "must be a whole number")
		}
		if p.Minimum != nil && x < *p.Minimum {
			return fieldError(f, "less than %v", *p.Minimum)
		}
		if p.Maximum != nil && x > *p.Maximum {
			return fieldError(f, "more than %v", *p.Maximum)
		}
	}
	return nil
}
