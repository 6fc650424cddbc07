// Command mcpserver runs the mcptest server over stdio, for tests that start it
// as a child process. -count names the file that records each sleep call.
package main

import (
	"context"
	"flag"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rtcagent/rtcagent/internal/mcptools/mcptest"
)

func main() {
	countFile := flag.String("count", "", "file that gets a line per sleep call")
	flag.Parse()
	if err := mcptest.NewServer(mcptest.Options{CountFile: *countFile, Exit: func() { os.Exit(3) }}).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
