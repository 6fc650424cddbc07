package testsvc

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sync"
	"testing"
)

type built struct {
	once sync.Once
	path string
	err  error
}

var binaries sync.Map // package path → *built

// Binary builds the command in package pkg once per test process and returns the
// path of the executable, for tests that run it as a child process.
func Binary(t testing.TB, pkg string) string {
	t.Helper()
	v, _ := binaries.LoadOrStore(pkg, &built{})
	b := v.(*built)
	b.once.Do(func() {
		name := path.Base(pkg)
		dir, err := os.MkdirTemp("", name+"-bin")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, name)
		out, err := exec.Command("go", "build", "-o", b.path, pkg).CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("build %s: %v\n%s", pkg, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// ServerBinary builds cmd/rtcagent once per test process, for tests that run the
// server as a child process (so that SIGKILL ends a real server).
func ServerBinary(t testing.TB) string {
	t.Helper()
	return Binary(t, "github.com/rtcagent/rtcagent/cmd/rtcagent")
}
