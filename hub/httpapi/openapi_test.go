package httpapi

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/switchboard-hub/switchboard/hub"
)

// loadSpec reads docs/openapi.yaml.
func loadSpec(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile("../../docs/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := yaml.Unmarshal(b, &spec); err != nil {
		t.Fatalf("docs/openapi.yaml: %v", err)
	}
	return spec
}

func obj(t *testing.T, v any, where string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: not an object: %v", where, v)
	}
	return m
}

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// The spec and the server's route table list the same operations, and
// agree on which take a JSON body and which stream.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	spec := loadSpec(t)
	if spec["openapi"] != "3.1.0" {
		t.Fatalf("openapi %v", spec["openapi"])
	}
	ops := map[string]map[string]any{}
	pathParams := map[string][]any{}
	for path, item := range obj(t, spec["paths"], "paths") {
		pi := obj(t, item, path)
		if ps, ok := pi["parameters"].([]any); ok {
			pathParams[path] = ps
		}
		for _, m := range httpMethods {
			if op, ok := pi[m]; ok {
				ops[strings.ToUpper(m)+" "+path] = obj(t, op, m+" "+path)
			}
		}
	}
	routes := map[string]Route{}
	for _, rt := range Routes() {
		routes[rt.Method+" "+rt.Path] = rt
	}
	for key := range routes {
		if _, ok := ops[key]; !ok {
			t.Errorf("route %s is not in docs/openapi.yaml", key)
		}
	}
	opIDs := map[string]bool{}
	for key, op := range ops {
		rt, ok := routes[key]
		if !ok {
			t.Errorf("docs/openapi.yaml has %s, which the server does not serve", key)
			continue
		}
		id, _ := op["operationId"].(string)
		if id == "" || opIDs[id] {
			t.Errorf("%s: operationId %q missing or repeated", key, id)
		}
		opIDs[id] = true
		rb, hasBody := op["requestBody"].(map[string]any)
		if hasBody != (rt.Body || rt.RawBody != "") {
			t.Errorf("%s: requestBody in spec %v, route Body %v RawBody %q", key, hasBody, rt.Body, rt.RawBody)
		}
		if hasBody {
			media := "application/json"
			if rt.RawBody != "" {
				media = rt.RawBody
			}
			if _, ok := obj(t, rb["content"], key)[media]; !ok {
				t.Errorf("%s: request body is not %s", key, media)
			}
		}
		responses := obj(t, op["responses"], key+" responses")
		if streams := responseHasContent(spec, responses, "text/event-stream"); streams != rt.Stream {
			t.Errorf("%s: text/event-stream in spec %v, route Stream %v", key, streams, rt.Stream)
		}
		if !rt.Public() {
			if _, ok := responses["401"]; !ok {
				t.Errorf("%s: no 401 response", key)
			}
			if !refsParam(pathParams[strings.SplitN(key, " ", 2)[1]], op, "ClientID") {
				t.Errorf("%s: X-Client-ID parameter missing", key)
			}
		} else if sec, ok := op["security"].([]any); !ok || len(sec) != 0 {
			t.Errorf("%s: a public route must say security: []", key)
		}
		if rt.Body {
			for _, s := range []string{"413", "415"} {
				if _, ok := responses[s]; !ok {
					t.Errorf("%s: no %s response", key, s)
				}
			}
		}
	}
}

// responseHasContent reports whether any response (following $refs) offers
// the media type.
func responseHasContent(spec map[string]any, responses map[string]any, media string) bool {
	for _, r := range responses {
		rm, _ := resolve(spec, r).(map[string]any)
		if c, ok := rm["content"].(map[string]any); ok {
			if _, ok := c[media]; ok {
				return true
			}
		}
	}
	return false
}

// refsParam reports whether the path item's or the operation's parameters
// include #/components/parameters/<name>.
func refsParam(pathLevel []any, op map[string]any, name string) bool {
	opLevel, _ := op["parameters"].([]any)
	for _, p := range append(slices.Clone(pathLevel), opLevel...) {
		if m, ok := p.(map[string]any); ok && m["$ref"] == "#/components/parameters/"+name {
			return true
		}
	}
	return false
}

func resolve(spec map[string]any, v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	ref, ok := m["$ref"].(string)
	if !ok {
		return v
	}
	var cur any = spec
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		cm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = cm[part]
	}
	return cur
}

// Every $ref points at something.
func TestOpenAPIRefsResolve(t *testing.T) {
	spec := loadSpec(t)
	var walk func(v any, where string)
	walk = func(v any, where string) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok && resolve(spec, x) == nil {
				t.Errorf("%s: $ref %s does not resolve", where, ref)
			}
			for k, c := range x {
				walk(c, where+"/"+k)
			}
		case []any:
			for _, c := range x {
				walk(c, where)
			}
		}
	}
	walk(spec, "#")
}

// The resource schemas list exactly the JSON fields of the Go types, and
// the error codes exactly the code→status table.
func TestOpenAPISchemasMatchTypes(t *testing.T) {
	spec := loadSpec(t)
	schemas := obj(t, obj(t, spec["components"], "components")["schemas"], "schemas")
	for name, typ := range map[string]reflect.Type{
		"Agent":                reflect.TypeFor[hub.Agent](),
		"Thread":               reflect.TypeFor[hub.Thread](),
		"Turn":                 reflect.TypeFor[hub.Turn](),
		"Permission":           reflect.TypeFor[hub.Permission](),
		"PermissionOption":     reflect.TypeFor[hub.PermissionOption](),
		"PermissionRequest":    reflect.TypeFor[hub.PermissionRequest](),
		"EnvVar":               reflect.TypeFor[hub.EnvVar](),
		"CreateThreadRequest":  reflect.TypeFor[hub.CreateThreadRequest](),
		"TurnInput":            reflect.TypeFor[hub.TurnInput](),
		"Decision":             reflect.TypeFor[hub.Decision](),
		"RememberedRule":       reflect.TypeFor[hub.RememberedRule](),
		"PermissionRule":       reflect.TypeFor[hub.PermissionRule](),
		"Settings":             reflect.TypeFor[hub.Settings](),
		"AgentSettings":        reflect.TypeFor[hub.AgentSettings](),
		"SettingsPatch":        reflect.TypeFor[hub.SettingsPatch](),
		"AgentPatch":           reflect.TypeFor[hub.AgentPatch](),
		"AgentSession":         reflect.TypeFor[hub.AgentSession](),
		"AgentSessionPage":     reflect.TypeFor[hub.AgentSessionPage](),
		"ImportSessionRequest": reflect.TypeFor[hub.ImportSessionRequest](),
		"ImportedSession":      reflect.TypeFor[hub.ImportedSession](),
	} {
		s := obj(t, schemas[name], name)
		var got []string
		for k := range obj(t, s["properties"], name+" properties") {
			got = append(got, k)
		}
		want := jsonFields(typ)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("schema %s has %v, the Go type %v", name, got, want)
		}
	}
	for _, name := range []string{"Event", "Error", "EventStream"} {
		if _, ok := schemas[name]; !ok {
			t.Errorf("schema %s missing", name)
		}
	}
	errObj := obj(t, obj(t, obj(t, schemas["Error"], "Error")["properties"], "Error")["error"], "error")
	code := obj(t, obj(t, errObj["properties"], "error")["code"], "code")
	var codes []string
	for _, c := range code["enum"].([]any) {
		codes = append(codes, c.(string))
	}
	var table []string
	for c := range statusOf {
		table = append(table, c)
	}
	slices.Sort(codes)
	slices.Sort(table)
	if !slices.Equal(codes, table) {
		t.Errorf("Error codes %v, table %v", codes, table)
	}
}

// jsonFields lists the JSON names of a struct's fields (embedded structs
// flattened, "-" skipped).
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if f.Anonymous && name == "" {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}
