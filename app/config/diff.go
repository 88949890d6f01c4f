package config

import (
	"reflect"
	"sort"
	"strings"
)

// Diff lists the config keys whose values differ between a and b, sorted
// and dotted as written in the file: "permissions.timeout", or
// "agents.claude" for an agent added, removed or changed. It names keys,
// never values (an agent's env may hold secrets).
func Diff(a, b Config) []string {
	var keys []string
	diffValues("", reflect.ValueOf(a), reflect.ValueOf(b), &keys)
	sort.Strings(keys)
	return keys
}

func diffValues(prefix string, a, b reflect.Value, keys *[]string) {
	switch {
	case a.Kind() == reflect.Struct:
		for i := range a.NumField() {
			name, _, _ := strings.Cut(a.Type().Field(i).Tag.Get("mapstructure"), ",")
			if name == "" {
				name = a.Type().Field(i).Name
			}
			if prefix != "" {
				name = prefix + "." + name
			}
			diffValues(name, a.Field(i), b.Field(i), keys)
		}
	case a.Kind() == reflect.Map && prefix == "agents":
		ids := map[string]bool{}
		for _, k := range a.MapKeys() {
			ids[k.String()] = true
		}
		for _, k := range b.MapKeys() {
			ids[k.String()] = true
		}
		for id := range ids {
			k := reflect.ValueOf(id)
			va, vb := a.MapIndex(k), b.MapIndex(k)
			if va.IsValid() != vb.IsValid() || va.IsValid() && !reflect.DeepEqual(va.Interface(), vb.Interface()) {
				*keys = append(*keys, prefix+"."+id)
			}
		}
	case !reflect.DeepEqual(a.Interface(), b.Interface()):
		*keys = append(*keys, prefix)
	}
}
