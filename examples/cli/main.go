// Command cli chats with an RTC Agent server in a terminal and lets the agent
// read, write and list the files of one directory (and nothing outside it).
//
//	go run ./examples/cli -url ws://localhost:8080/connection/websocket -dir ./somedir
//
// Against a server started with -dev (make run) it gets its token from the
// development endpoint; otherwise pass -token or set RTCAGENT_TOKEN. Each line
// you type is a message; the answer streams back. write_file asks before it
// runs (answer y or n) unless -yes is given.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/rtcagent/rtcagent/client"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "cli:", err)
		os.Exit(1)
	}
}

func run() error {
	wsURL := flag.String("url", "ws://localhost:8080/connection/websocket", "server WebSocket URL")
	dir := flag.String("dir", ".", "the directory the agent's file tools work in")
	token := flag.String("token", os.Getenv("RTCAGENT_TOKEN"), "connection token (default $RTCAGENT_TOKEN; empty: a development token from a -dev server)")
	user := flag.String("user", "cli-user", "user id asked for with a development token")
	device := flag.String("device", "", "device id (default cli-<host name>); keep it to find your sessions again")
	session := flag.String("session", "", "continue this session instead of starting one")
	journal := flag.String("journal", "", "journal directory (default <user cache dir>/rtcagent-cli)")
	yes := flag.Bool("yes", false, "run every tool call without asking (work mode bypass)")
	flag.Parse()

	root, err := os.OpenRoot(*dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if *device == "" {
		host, _ := os.Hostname()
		*device = "cli-" + deviceSafe(host)
	}
	if *journal == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return err
		}
		*journal = filepath.Join(cache, "rtcagent-cli")
	}
	opts := client.Options{URL: *wsURL, DeviceID: *device, JournalDir: *journal}
	if *token != "" {
		opts.Token = *token
	} else {
		opts.TokenFunc = devToken(*wsURL, *user)
	}
	lines := readLines(os.Stdin)
	if *yes {
		opts.WorkMode = "bypass"
	} else {
		opts.Confirm = confirm(lines)
	}
	c, err := client.New(opts)
	if err != nil {
		return err
	}
	for _, t := range fileTools(root) {
		if err := c.RegisterTool(t); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err = c.WaitConnected(cctx)
	cancel()
	if err != nil {
		return fmt.Errorf("connect to %s: %w", *wsURL, err)
	}
	fmt.Printf("Connected as device %s; the agent's file tools work in %s. Type a message (Ctrl-D to quit).\n", *device, root.Name())
	sid := *session
	for {
		fmt.Print("> ")
		var line string
		var ok bool
		select {
		case line, ok = <-lines:
		case <-ctx.Done():
		}
		if !ok || ctx.Err() != nil {
			fmt.Println()
			break
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		reply, err := c.Send(ctx, sid, line)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		if sid == "" {
			sid = reply.SessionID
			fmt.Printf("(session %s)\n", sid)
		}
		show(reply)
	}
	stop()
	return <-done
}

// show prints a turn as it streams: text chunks, tool calls with their
// outcomes, and the end of the turn.
func show(reply *client.Reply) {
	printed := map[string]string{} // message → text printed so far
	for ev := range reply.Events() {
		switch ev.Kind {
		case client.EventText:
			fmt.Print(ev.Text)
			printed[ev.MessageID] += ev.Text
		case client.EventMessage:
			// Live chunks may be lost; the final text is the truth.
			if so := printed[ev.MessageID]; strings.HasPrefix(ev.Text, so) {
				fmt.Print(ev.Text[len(so):])
			} else {
				fmt.Print("\n" + ev.Text)
			}
			if ev.Text != "" {
				fmt.Println()
			}
		case client.EventToolCall:
			fmt.Printf("[%s %s]\n", ev.Call.Tool, compact(ev.Call.Args, 200))
		case client.EventToolResult:
			if ev.Status == "completed" {
				fmt.Printf("[%s: %s]\n", ev.Call.Tool, compact(ev.Output, 200))
			} else {
				fmt.Printf("[%s %s: %s]\n", ev.Call.Tool, ev.Status, ev.Error)
			}
		case client.EventTurnEnd:
			if ev.Status != "completed" {
				fmt.Printf("[turn %s: %s]\n", ev.Status, ev.Error)
			}
		}
	}
}

func compact(raw json.RawMessage, max int) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		b.Reset()
		b.Write(raw)
	}
	s := b.String()
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// readLines reads the terminal in the background; the chat loop and the
// confirmation prompts take turns reading from the channel.
func readLines(r io.Reader) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 64<<10)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}

// confirm lets list_files and read_file run (they only read inside the
// folder) and asks the person before anything else.
func confirm(lines <-chan string) func(context.Context, client.Call) (bool, string) {
	return func(ctx context.Context, call client.Call) (bool, string) {
		if call.Tool == "list_files" || call.Tool == "read_file" {
			return true, ""
		}
		fmt.Printf("\nAllow %s %s? [y/N] ", call.Tool, compact(call.Args, 400))
		select {
		case line, ok := <-lines:
			if ok && strings.EqualFold(strings.TrimSpace(line), "y") {
				return true, ""
			}
			return false, "the user declined"
		case <-ctx.Done():
			fmt.Println("(the call ended before an answer)")
			return false, ""
		}
	}
}

// devToken asks a server started with -dev for a token (POST /api/dev/token).
func devToken(wsURL, user string) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		u, err := url.Parse(wsURL)
		if err != nil {
			return "", err
		}
		u.Scheme = map[string]string{"wss": "https"}[u.Scheme]
		if u.Scheme == "" {
			u.Scheme = "http"
		}
		u.Path, u.RawQuery = "/api/dev/token", ""
		body, _ := json.Marshal(map[string]string{"user_id": user})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
		if err != nil {
			return "", err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return "", errors.New("no development token (is the server running with -dev? otherwise pass -token): " + resp.Status)
		}
		var out struct {
			Token string `json:"token"`
		}
		if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&out); err != nil {
			return "", err
		}
		return out.Token, nil
	}
}

// deviceSafe keeps the characters a device id may hold.
func deviceSafe(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._:-", r)) {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "host"
	}
	return b.String()[:min(b.Len(), 100)]
}
