package main

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/rtcagent/rtcagent"

// wing names the part of the house a package belongs to: "ops" (operator
// commands: in the binary, never on the request path), "testkit" (what only
// tests and measures) or "product" (what `rtcagent serve` runs, the Go client
// and the examples). The binary's main is where the product meets the
// operator commands.
func wing(pkg string) string {
	switch {
	case pkg == module+"/cmd/rtcagent":
		return "main"
	case strings.HasPrefix(pkg, module+"/internal/ops/"):
		return "ops"
	case strings.HasPrefix(pkg, module+"/internal/testkit/"):
		return "testkit"
	default:
		return "product"
	}
}

// allowed says which wings a wing's non-test code may depend on, directly or
// through others. Tests may import anything.
var allowed = map[string]map[string]bool{
	"product": {"product": true},
	"testkit": {"product": true, "testkit": true},
	"ops":     {"product": true, "testkit": true, "ops": true},
	"main":    {"product": true, "ops": true, "testkit": true},
}

// TestLayout keeps the three wings apart: no product package reaches an
// operator command or test support, even through another package, and test
// support never reaches an operator command.
func TestLayout(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	wings := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, from := fields[0], wing(fields[0])
		wings[from]++
		for _, dep := range fields[1:] {
			if !strings.HasPrefix(dep, module+"/") {
				continue
			}
			if to := wing(dep); !allowed[from][to] {
				t.Errorf("%s (%s) depends on %s (%s)", strings.TrimPrefix(pkg, module+"/"), from, strings.TrimPrefix(dep, module+"/"), to)
			}
		}
	}
	// The test means nothing if the wings are empty (a rename, a moved module).
	for _, w := range []string{"product", "ops", "testkit", "main"} {
		if wings[w] == 0 {
			t.Errorf("no package in the %s wing", w)
		}
	}
}
