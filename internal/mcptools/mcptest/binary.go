package mcptest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Binary builds the mcpserver command once per test process and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcptest-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "mcpserver")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/rtcagent/rtcagent/internal/mcptools/mcptest/mcpserver").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("build mcpserver: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}
