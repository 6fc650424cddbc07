package testsvc

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

// ServerBinary builds cmd/rtcagent once per test process, for tests that run the
// server as a child process (so that SIGKILL ends a real server).
func ServerBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rtcagent-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "rtcagent")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/rtcagent/rtcagent/cmd/rtcagent").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}
