package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The test binary runs main itself when asked, so exit codes are the real ones.
func TestMain(m *testing.M) {
	if args := os.Getenv("RTCAGENT_TEST_MAIN_ARGS"); args != "" {
		os.Args = append([]string{"rtcagent"}, strings.Fields(args)...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runMain(t *testing.T, args string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RTCAGENT_TEST_MAIN_ARGS="+args, "RTCAGENT_TOKEN_SECRET=", "RTCAGENT_DEV=")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

func TestServeHelpListsTheFlagsAndExitsZero(t *testing.T) {
	for _, help := range []string{"-help", "-h", "--help"} {
		code, out := runMain(t, "serve "+help)
		if code != 0 {
			t.Errorf("serve %s: exit %d\n%s", help, code, out)
		}
		for _, want := range []string{"usage: rtcagent serve", "-prices", "path of a JSON file", "RTCAGENT_PRICES", "-token-secret"} {
			if !strings.Contains(out, want) {
				t.Errorf("serve %s: output lacks %q\n%s", help, want, out)
			}
		}
	}
}

func TestServeRefusesBadFlagsWithExitTwo(t *testing.T) {
	for _, args := range []string{"serve -no-such-flag", "serve -lease-ttl soon", "serve"} { // the last: no token secret and no -dev
		if code, out := runMain(t, args); code != 2 || !strings.Contains(out, "rtcagent") {
			t.Errorf("%s: exit %d\n%s", args, code, out)
		}
	}
	if code, _ := runMain(t, "nothing"); code != 2 {
		t.Errorf("unknown command: exit %d", code)
	}
}
