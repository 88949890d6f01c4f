package hub_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// fieldOf is the details.field of a *hub.Error ("" for none).
func fieldOf(err error) string {
	if e, ok := err.(*hub.Error); ok {
		f, _ := e.Details["field"].(string)
		return f
	}
	return ""
}

func TestParseElicitationSchema(t *testing.T) {
	s, err := hub.ParseElicitationSchema(json.RawMessage(`{"type":"object","title":"T","properties":{
		"z":{"type":"string","enum":["a","b"],"default":"c","pattern":"^x"},
		"a":{"type":"integer","minimum":1,"default":2},
		"m":{"type":"boolean"}},"required":["z"]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s)
	// The agent's order, an invalid default dropped, unknown keywords dropped.
	want := `{"type":"object","title":"T","properties":{"z":{"type":"string","enum":["a","b"],"pattern":"^x"},"a":{"type":"integer","default":2,"minimum":1},"m":{"type":"boolean"}},"required":["z"]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 5000) + `{"type":"string"}` + strings.Repeat(`}}`, 5000)
	many := `{"type":"object","properties":{`
	for i := range 51 {
		if i > 0 {
			many += ","
		}
		many += `"f` + strings.Repeat("x", i) + `":{"type":"string"}`
	}
	many += `}}`
	for _, tt := range []struct{ name, schema, field string }{
		{"missing", ``, "requestedSchema"},
		{"not an object", `[1]`, "requestedSchema"},
		{"another type", `{"type":"array"}`, "requestedSchema.type"},
		{"array field", `{"properties":{"a":{"type":"array","items":{"type":"string"}}}}`, "requestedSchema.properties.a"},
		{"nested", `{"properties":{"a":{"type":"object","properties":{}}}}`, "requestedSchema.properties.a"},
		{"no type", `{"properties":{"a":{}}}`, "requestedSchema.properties.a"},
		{"enum on a number", `{"properties":{"a":{"type":"number","enum":["1"]}}}`, "requestedSchema.properties.a"},
		{"twice", `{"properties":{"a":{"type":"string"},"a":{"type":"boolean"}}}`, "requestedSchema.properties.a"},
		{"empty name", `{"properties":{"":{"type":"string"}}}`, "requestedSchema.properties"},
		{"required unknown", `{"properties":{"a":{"type":"string"}},"required":["b"]}`, "requestedSchema.required"},
		{"too many fields", many, "requestedSchema.properties"},
		{"too big", `{"description":"` + strings.Repeat("x", hub.MaxElicitationSchemaBytes) + `"}`, "requestedSchema"},
		{"deeply nested", deep, "requestedSchema"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := hub.ParseElicitationSchema(json.RawMessage(tt.schema))
			if hub.ErrorCode(err) != hub.CodeInvalidArgument || fieldOf(err) != tt.field {
				t.Errorf("%v (field %q), want INVALID_ARGUMENT naming %q", err, fieldOf(err), tt.field)
			}
		})
	}
	long, _ := hub.ParseElicitationSchema(json.RawMessage(`{"title":"` + strings.Repeat("é", hub.MaxElicitationText) + `"}`))
	if long == nil || len(long.Title) > hub.MaxElicitationText+len("…") || !strings.HasSuffix(long.Title, "…") {
		t.Errorf("a long title is not clipped: %d bytes", len(long.Title))
	}
}

func TestCheckElicitationContent(t *testing.T) {
	s, err := hub.ParseElicitationSchema(json.RawMessage(`{"properties":{
		"s":{"type":"string","minLength":2,"maxLength":3},"e":{"type":"string","oneOf":[{"const":"x","title":"X"}]},
		"i":{"type":"integer","minimum":-1,"maximum":1},"n":{"type":"number"},"b":{"type":"boolean"}},"required":["s"]}`))
	if err != nil {
		t.Fatal(err)
	}
	ok := `{"s":"éé","e":"x","i":-1,"n":1e3,"b":false}`
	var c map[string]json.RawMessage
	json.Unmarshal([]byte(ok), &c)
	if err := hub.CheckElicitationContent(s, c); err != nil {
		t.Fatalf("valid content refused: %v", err)
	}
	for _, tt := range []struct{ content, field string }{
		{`{}`, "content.s"},
		{`{"s":null}`, "content.s"},
		{`{"s":"a"}`, "content.s"},
		{`{"s":"abcd"}`, "content.s"},
		{`{"s":5}`, "content.s"},
		{`{"s":"ab","e":"y"}`, "content.e"},
		{`{"s":"ab","i":0.5}`, "content.i"},
		{`{"s":"ab","i":2}`, "content.i"},
		{`{"s":"ab","i":"1"}`, "content.i"},
		{`{"s":"ab","n":true}`, "content.n"},
		{`{"s":"ab","b":"true"}`, "content.b"},
		{`{"s":"ab","x":1}`, "content.x"},
		{`{"s":"ab","b":[true]}`, "content.b"},
	} {
		var c map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tt.content), &c); err != nil {
			t.Fatal(err)
		}
		err := hub.CheckElicitationContent(s, c)
		if hub.ErrorCode(err) != hub.CodeInvalidArgument || fieldOf(err) != tt.field {
			t.Errorf("%s: %v (field %q), want INVALID_ARGUMENT naming %q", tt.content, err, fieldOf(err), tt.field)
		}
	}
}

// A string's format and pattern are kept where the hub checks them and
// checked in the answer; one it cannot check is dropped, never trusted
// to the window (a browser's regexp backtracks: an agent's pattern could
// hang it).
func TestElicitationFormatAndPattern(t *testing.T) {
	long := strings.Repeat("a", hub.MaxElicitationPattern+1)
	s, err := hub.ParseElicitationSchema(json.RawMessage(`{"properties":{
		"mail":{"type":"string","format":"email"},
		"link":{"type":"string","format":"uri"},
		"day":{"type":"string","format":"date","default":"25/11/2026"},
		"when":{"type":"string","format":"date-time","default":"2026-11-25T16:00:00+01:00"},
		"code":{"type":"string","pattern":"^[A-Z]{3}-[0-9]+$"},
		"evil":{"type":"string","pattern":"(a+)+$"},
		"ahead":{"type":"string","pattern":"^(?=x)x"},
		"long":{"type":"string","pattern":"` + long + `"},
		"color":{"type":"string","format":"color"},
		"n":{"type":"number","format":"email","pattern":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s)
	want := `{"type":"object","properties":{"mail":{"type":"string","format":"email"},"link":{"type":"string","format":"uri"},` +
		`"day":{"type":"string","format":"date"},"when":{"type":"string","default":"2026-11-25T16:00:00+01:00","format":"date-time"},` +
		`"code":{"type":"string","pattern":"^[A-Z]{3}-[0-9]+$"},"evil":{"type":"string","pattern":"(a+)+$"},` +
		`"ahead":{"type":"string"},"long":{"type":"string"},"color":{"type":"string"},"n":{"type":"number"}}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	check := func(content string) error {
		var c map[string]json.RawMessage
		if err := json.Unmarshal([]byte(content), &c); err != nil {
			t.Fatal(err)
		}
		return hub.CheckElicitationContent(s, c)
	}
	ok := `{"mail":"ann@example.org","link":"https://example.org/a?b","day":"2026-02-28","when":"2026-11-25T16:00:00.123Z",` +
		`"code":"ABC-42","evil":"xa","ahead":"y","long":"z","color":"red","n":1}`
	if err := check(ok); err != nil {
		t.Fatalf("valid content refused: %v", err)
	}
	for _, tt := range []struct{ content, field string }{
		{`{"mail":"ann"}`, "content.mail"},
		{`{"mail":"@example.org"}`, "content.mail"},
		{`{"mail":"ann@"}`, "content.mail"},
		{`{"mail":"ann smith@example.org"}`, "content.mail"},
		{`{"link":"example.org/a"}`, "content.link"},
		{`{"link":"https://exa mple.org"}`, "content.link"},
		{`{"day":"2026-02-30"}`, "content.day"},
		{`{"day":"25/11/2026"}`, "content.day"},
		{`{"when":"2026-11-25 16:00"}`, "content.when"},
		{`{"when":"2026-11-25T16:00:00"}`, "content.when"},
		{`{"code":"abc-42"}`, "content.code"},
		{`{"code":"ABC-42x"}`, "content.code"},
		{`{"evil":"bbb"}`, "content.evil"},
		// what makes a backtracking engine take exponential time: RE2 is linear
		{`{"evil":"` + strings.Repeat("a", 50000) + `!"}`, "content.evil"},
	} {
		err := check(tt.content)
		if hub.ErrorCode(err) != hub.CodeInvalidArgument || fieldOf(err) != tt.field {
			t.Errorf("%s: %v (field %q), want INVALID_ARGUMENT naming %q", tt.content, err, fieldOf(err), tt.field)
		}
	}
}

func TestCheckElicitationURL(t *testing.T) {
	for _, u := range []string{"https://example.com/a?b=c#d", "http://127.0.0.1:8080/x"} {
		if err := hub.CheckElicitationURL(u); err != nil {
			t.Errorf("%s refused: %v", u, err)
		}
	}
	for _, u := range []string{"", "javascript:alert(1)", "JAVASCRIPT:alert(1)", "data:text/html,x", "file:///etc/passwd",
		"ftp://example.com/", "https://user:pw@example.com/", "https://bank.example@evil.example/", "//evil.example/",
		"https:///nohost", "https://exa mple.com/", "https://example.com/\nx", "/relative", "https://example.com/" + strings.Repeat("a", hub.MaxElicitationURL)} {
		if err := hub.CheckElicitationURL(u); hub.ErrorCode(err) != hub.CodeInvalidArgument || fieldOf(err) != "url" {
			t.Errorf("%.60q: %v, want refused naming url", u, err)
		}
	}
}
