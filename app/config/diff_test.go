package config

import (
	"slices"
	"testing"
)

func TestConfigDiff(t *testing.T) {
	a, err := parse("a.yaml", []byte("agents:\n  x:\n    command: x\n  y:\n    command: y\n"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := parse("b.yaml", []byte("listen: 127.0.0.1:9\npermissions:\n  timeout: 1m\nallowedOrigins: [http://a.test]\nagents:\n  x:\n    command: x2\n  z:\n    command: z\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"agents.x", "agents.y", "agents.z", "allowedOrigins", "listen", "permissions.timeout"}
	if got := Diff(a, b); !slices.Equal(got, want) {
		t.Fatalf("Diff = %v, want %v", got, want)
	}
}
