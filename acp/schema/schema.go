// Package schema holds ACP traffic to the official JSON schema of the
// Agent Client Protocol, v1, as published in the npm package
// @agentclientprotocol/sdk (version SDKVersion; its schema/v1/schema.json
// and schema.unstable.json are copied verbatim into v1/ by
// `make acp-schema`). Tests use it; nothing the binaries run imports it.
//
// A method's messages are checked against the $defs the schema tags with
// that method (x-method): <Name>Request for a request's params,
// <Name>Response for a result, <Name>Notification for a notification's
// params, Error for an error. Methods of the stable file are checked
// against it; a method only the unstable file has is checked against the
// unstable file (the client sends those only to agents that advertise
// them); a method in neither, unless it is an extension method ("_…"), is
// an error.
package schema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SDKVersion is the version of @agentclientprotocol/sdk the files in v1/
// come from.
const SDKVersion = "2.4.0"

//go:embed v1/schema.json
var stableJSON []byte

//go:embed v1/schema.unstable.json
var unstableJSON []byte

// Kind is the kind of JSON-RPC message a $def describes.
type Kind string

// The kinds of message.
const (
	Request      Kind = "Request"
	Response     Kind = "Response"
	Notification Kind = "Notification"
)

// File is one of the two schema files.
type File struct {
	name   string
	doc    any
	defs   map[string]map[string]any // raw $defs
	byKind map[Kind]map[string]string
	mu     sync.Mutex
	comp   *jsonschema.Compiler
	cache  map[string]*jsonschema.Schema
}

var (
	loadOnce         sync.Once
	stable, unstable *File
	loadErr          error
)

// Stable and Unstable are the two files, parsed once.
func Stable() (*File, error)   { load(); return stable, loadErr }
func Unstable() (*File, error) { load(); return unstable, loadErr }

func load() {
	loadOnce.Do(func() {
		if stable, loadErr = parse("schema.json", stableJSON); loadErr == nil {
			unstable, loadErr = parse("schema.unstable.json", unstableJSON)
		}
	})
}

func parse(name string, data []byte) (*File, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("schema: %s: %w", name, err)
	}
	var raw struct {
		Defs map[string]map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("schema: %s: %w", name, err)
	}
	f := &File{name: name, doc: doc, defs: raw.Defs, cache: map[string]*jsonschema.Schema{},
		byKind: map[Kind]map[string]string{Request: {}, Response: {}, Notification: {}}}
	for def, body := range raw.Defs {
		method, _ := body["x-method"].(string)
		if method == "" {
			continue
		}
		for _, k := range []Kind{Request, Response, Notification} {
			if strings.HasSuffix(def, string(k)) {
				f.byKind[k][method] = def
			}
		}
	}
	f.comp = jsonschema.NewCompiler()
	if err := f.comp.AddResource(name, doc); err != nil {
		return nil, err
	}
	return f, nil
}

// Methods lists the methods the file has messages of kind k for, sorted.
func (f *File) Methods(k Kind) []string {
	out := make([]string, 0, len(f.byKind[k]))
	for m := range f.byKind[k] {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// hasUpdateKind reports whether the file's SessionUpdate has the kind
// (a "sessionUpdate" const of one of its variants).
func (f *File) hasUpdateKind(kind string) bool {
	b, _ := json.Marshal(f.defs["SessionUpdate"])
	return bytes.Contains(b, []byte(`"const":"`+kind+`"`))
}

// Def is the $def describing method's message of kind k, "" when none.
func (f *File) Def(method string, k Kind) string { return f.byKind[k][method] }

// Side is who handles method's request or notification: "agent", "client"
// or "protocol", as the schema tags it.
func (f *File) Side(method string, k Kind) string {
	side, _ := f.defs[f.byKind[k][method]]["x-side"].(string)
	return side
}

// Validate checks v (decoded JSON: any, map[string]any, …, or raw bytes)
// against the $def named def.
func (f *File) Validate(def string, v json.RawMessage) error {
	s, err := f.compiled(def)
	if err != nil {
		return err
	}
	if len(v) == 0 {
		v = json.RawMessage("null")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(v))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

func (f *File) compiled(def string) (*jsonschema.Schema, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s := f.cache[def]; s != nil {
		return s, nil
	}
	if _, ok := f.defs[def]; !ok {
		return nil, fmt.Errorf("schema: %s has no $def %q", f.name, def)
	}
	s, err := f.comp.Compile(f.name + "#/$defs/" + def)
	if err != nil {
		return nil, err
	}
	f.cache[def] = s
	return s, nil
}

// fileFor is the file method's messages of kind k are checked against.
func fileFor(method string, k Kind) (*File, error) {
	load()
	if loadErr != nil {
		return nil, loadErr
	}
	if stable.Def(method, k) != "" {
		return stable, nil
	}
	if unstable.Def(method, k) != "" {
		return unstable, nil
	}
	return nil, fmt.Errorf("%s %q is in neither schema file", strings.ToLower(string(k)), method)
}
