package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/fsx"
)

// An Env run again (as tests and an embedding front-end do) releases the
// workspace lock each command took: before, a session cached from the
// first run was reused without its close, so the lock playbook propose
// took stayed held until the process ended.
func TestEnvReleasesLocksBetweenRuns(t *testing.T) {
	env, root := workspace(t)
	if err := os.MkdirAll(filepath.Join(root, "internal/schema"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "internal/schema/schema.go"), []byte("package schema\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(root, ".git", "memctl", "lock")
	try := func(after string) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		l, err := fsx.Acquire(ctx, lockPath, 100*time.Millisecond)
		if err != nil {
			t.Errorf("after %s: lock held: %v", after, err)
			return
		}
		l.Release()
	}
	run(t, env, "run", "record", "--run-id", "r-7d2e91", "--status", "failure", "--file", "internal/schema/schema.go", "--error", "x")
	try("run record")
	run(t, env, "playbook", "propose", "--signature", "0123456789ab", "--steps", "Do", "--error", "x", "--evidence", "run:r-7d2e91")
	try("playbook propose")
	out := run(t, env, "proposals", "--json")
	try("proposals")
	id := between(out, `"id": "`, `"`)
	run(t, env, "review", id, "--approve")
	try("review")
	env.In, env.Out, env.Err, env.StdinTTY = bytes.NewReader([]byte(`{"session_id":"s","tool_name":"Edit","tool_input":{"file_path":"internal/schema/schema.go"}}`)), &bytes.Buffer{}, &bytes.Buffer{}, false
	Main(context.Background(), []string{"hook", "claude", "pre-tool-use"}, env)
	try("pre-tool-use")
}
