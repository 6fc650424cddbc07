// Command mcpserver runs the mcptest server over stdio, for tests that start it
// as a child process. -count names the file that records each sleep call; -wait
// names a file whose creation the server waits for before it serves, as a
// server that is slow to start (npx fetching a package).
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rtcagent/rtcagent/internal/testkit/mcptest"
)

func main() {
	countFile := flag.String("count", "", "file that gets a line per sleep call")
	wait := flag.String("wait", "", "file to wait for before serving")
	flag.Parse()
	for *wait != "" {
		if _, err := os.Stat(*wait); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := mcptest.NewServer(mcptest.Options{CountFile: *countFile, Exit: func() { os.Exit(3) }}).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
