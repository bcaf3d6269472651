package prime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/tasks/taskstest"
)

// benchWorkspace is the check benchmark's workspace: about 800 lines of
// facts in five files, 1,000 pending proposals and n generated tasks
// (runs off: their summary is measured by the whole-process figure in
// docs/development.md).
func benchWorkspace(b *testing.B, n int) (*config.Workspace, Options) {
	files := map[string]string{config.IssuesFile: string(taskstest.JSONL(rand.New(rand.NewPCG(1, 2)), n))}
	for _, cat := range []string{"architecture", "invariants", "performance_rules", "pitfalls", "preferences"} {
		var s strings.Builder
		s.WriteString("# " + cat + "\n\n")
		for i := range 155 {
			fmt.Fprintf(&s, "- %s fact %d: the index is a cache, rebuilt from files; never commit it.\n", cat, i)
		}
		files[".ledger/facts/"+cat+".md"] = s.String()
	}
	for i := range 1000 {
		id := fmt.Sprintf("p%04d", i)
		files[".ledger/proposals/"+id+".json"] = proposalFile(id, "pending", "pitfalls", "Keep the ready queue sorted "+id+".", "", "", time.Time{})
	}
	ws := testWorkspace(b, files)
	return ws, Options{Actor: "alice", Now: now0, TasksCache: filepath.Join(ws.Repo.GitDir, "memctl", "tasks.cache"),
		PinsDir: PinsDir(ws)}
}

func benchmarkBuild(b *testing.B, n int) {
	ws, opts := benchWorkspace(b, n)
	Build(context.Background(), ws, opts) // the summaries, as after any earlier prime
	settle(b, ws)                         // written long after the files, as a prime's usually are
	b.ReportAllocs()
	for b.Loop() {
		Build(context.Background(), ws, opts)
	}
}

func BenchmarkBuild1k(b *testing.B)  { benchmarkBuild(b, 1000) }
func BenchmarkBuild10k(b *testing.B) { benchmarkBuild(b, 10000) }

// BenchmarkBuildCold10k rebuilds the summaries every time (the first
// prime after a change of the task graph, the facts and the proposals).
func BenchmarkBuildCold10k(b *testing.B) {
	ws, opts := benchWorkspace(b, 10000)
	Build(context.Background(), ws, opts)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		opts.Now = opts.Now.Add(time.Second)
		for _, f := range []string{"prime-tasks.cache", "prime-ledger.cache"} {
			_ = removeFile(filepath.Join(ws.Repo.GitDir, "memctl", f))
		}
		b.StartTimer()
		Build(context.Background(), ws, opts)
	}
}

func removeFile(p string) error { return os.Remove(p) }
