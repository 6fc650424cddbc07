// Command streamtool changes a stopped server's Topic history the way operations
// do, for the browser tests of web/ (it lives under testdata/ so `go build ./...`
// and `go vet ./...` skip it; the tests run it with `go build`):
//
//	streamtool -data FILE -user U reset        new epoch, history dropped (store.StreamReset,
//	                                           what RemoveHistory does; a restored backup looks the same)
//	streamtool -data FILE -user U prune KEEP   history older than now dropped but the newest KEEP
//	                                           updates (store.UpdatePrune, the retention job)
//
// It prints the user's stream position afterwards as JSON.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

func main() {
	data := flag.String("data", "", "SQLite file of the (stopped) server")
	user := flag.String("user", "", "user id")
	flag.Parse()
	if *data == "" || *user == "" || flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: streamtool -data FILE -user U reset|prune KEEP")
		os.Exit(2)
	}
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, *data, sqlitestore.Options{})
	if err != nil {
		fail(err)
	}
	defer st.Close()
	err = st.Write(ctx, func(tx store.Tx) error {
		switch flag.Arg(0) {
		case "reset":
			_, err := tx.StreamReset(*user)
			return err
		case "prune":
			keep, err := strconv.Atoi(flag.Arg(1))
			if err != nil {
				return fmt.Errorf("prune KEEP: %w", err)
			}
			_, err = tx.UpdatePrune(time.Now().Add(time.Second), keep)
			return err
		}
		return fmt.Errorf("unknown command %q", flag.Arg(0))
	})
	if err != nil {
		fail(err)
	}
	var pos store.StreamPos
	if err := st.Read(ctx, func(tx store.Tx) error { pos, err = tx.StreamGet(*user); return err }); err != nil {
		fail(err)
	}
	_ = json.NewEncoder(os.Stdout).Encode(pos)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "streamtool:", err)
	os.Exit(1)
}
