package agent

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayering keeps the engine's logic free of transports and drivers: these
// packages talk to the world only through the store and model interfaces. Direct
// imports are checked (the metrics library brings net/http along, unused here).
func TestLayering(t *testing.T) {
	// database/sql/driver is allowed: the uuid package implements driver.Valuer.
	forbidden := []string{"net/http", "github.com/centrifugal/", "github.com/redis/", "github.com/jackc/", "modernc.org/sqlite", "database/sql "}
	for _, pkg := range []string{"agent", "session", "core", "lifecycle", "tools"} {
		out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, "github.com/rtcagent/rtcagent/internal/"+pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range forbidden {
				if strings.HasPrefix(dep+" ", f) {
					t.Errorf("internal/%s depends on %s", pkg, dep)
				}
			}
		}
	}
}
