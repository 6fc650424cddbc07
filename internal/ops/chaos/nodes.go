package chaos

import (
	"github.com/rtcagent/rtcagent/internal/testkit/nodeproc"

	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rtcagent/rtcagent/internal/store/pgstore"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// startNodes starts the embedded node, or Redis and three nodes on a fresh
// PostgreSQL schema.
func (h *harness) startNodes(ctx context.Context, dir string, logw io.Writer) error {
	scriptFile := filepath.Join(dir, "script.json")
	if err := os.WriteFile(scriptFile, []byte(script), 0o600); err != nil {
		return err
	}
	mcpFile, err := h.startMCP(dir)
	if err != nil {
		return err
	}
	if h.o.Mode == "embedded" {
		n, err := h.newNode(scriptFile, mcpFile, logw, "-data", filepath.Join(dir, "chaos.db"))
		if err != nil {
			return err
		}
		return h.startNode(ctx, n)
	}
	path, err := exec.LookPath(h.o.RedisServer)
	if err != nil {
		return fmt.Errorf("cluster mode needs redis-server: %w", err)
	}
	addr, err := nodeproc.FreeAddr()
	if err != nil {
		return err
	}
	_, port, _ := net.SplitHostPort(addr)
	h.redis = &redisProc{path: path, port: port}
	if err := h.redis.start(ctx); err != nil {
		return err
	}
	unique := testsvc.Unique()
	schema := "rtcagent_chaos_" + unique
	h.pgURL, h.app = h.o.DatabaseURL, "rtcagent-chaos-"+unique
	sep := "?"
	if strings.Contains(h.pgURL, "?") {
		sep = "&"
	}
	dbURL := h.pgURL + sep + "search_path=" + schema + "&application_name=" + h.app
	h.dropSchema = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := pgstore.DropSchema(ctx, h.pgURL, schema); err != nil {
			h.logf("%v", err)
		}
	}
	for range 3 {
		n, err := h.newNode(scriptFile, mcpFile, logw, "-database-url", dbURL, "-redis-url", h.redis.url(), "-redis-prefix", "chaos-"+unique)
		if err != nil {
			return err
		}
		if err := h.startNode(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

func (h *harness) newNode(scriptFile, mcpFile string, logw io.Writer, extra ...string) (*nodeproc.Proc, error) {
	addr, err := nodeproc.FreeAddr()
	if err != nil {
		return nil, err
	}
	n := &nodeproc.Proc{Cmd: h.o.ServerCmd, Addr: addr, Log: logw, Args: append(h.serverArgs(addr, scriptFile, mcpFile), extra...)}
	h.nodes = append(h.nodes, n)
	return n, nil
}

// terminateBackends ends every database connection of the nodes, as a
// PostgreSQL restart or failover would; it returns how many it ended.
func (h *harness) terminateBackends(ctx context.Context) (int, error) {
	conn, err := pgx.Connect(ctx, h.pgURL)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var n int
	err = conn.QueryRow(ctx, `SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = $1 AND pid <> pg_backend_pid()) t`, h.app).Scan(&n)
	return n, err
}
