package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// renderWorkspace is a workspace with what tables find hard: wide (CJK)
// and accented text, a long title, a combining accent, and a title with an
// escape sequence and a bidi override that arrived in issues.jsonl by a
// pull (the write gate refuses them from memctl itself).
func renderWorkspace(t *testing.T) *session {
	t.Helper()
	s := newSession(t)
	day := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	next := func() { day = day.Add(time.Hour); s.at(day) }
	next()
	parser := strings.TrimSpace(s.must("create", "Fix the parser on empty input", "-p", "1", "--assignee", "alice", "--silent"))
	next()
	s.must("create", "修复解析器中的错误并添加测试用例以及更多的文字内容", "--assignee", "山田太郎", "--silent")
	next()
	s.must("create", "Café crème brûlée: naïve résumé of the e\u0301tude, with a very long tail of words to clip", "-p", "3", "--silent")
	next()
	s.must("create", "Wire the CLI once the parser lands", "--deps", "blocked-by:"+parser, "--silent")
	next()
	pulled := strings.TrimSpace(s.must("create", "PULLED title", "-t", "bug", "--silent"))
	next()
	done := strings.TrimSpace(s.must("create", "Old task, done", "--silent"))
	s.must("close", done)

	issues := filepath.Join(s.dir, ".beads", "issues.jsonl")
	data, err := os.ReadFile(issues)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte("PULLED title"), []byte(`A pulled title with \u001b[31mred\u001b[0m and \u202eoverride, and more words after them`), 1)
	if err := os.WriteFile(issues, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_ = pulled

	next()
	s.must("propose", "--category", "pitfalls", "--reason", "seen twice", "--text", "Run `go test -race` before a release: the index has races.")
	next()
	s.must("propose", "--category", "preferences", "--reason", "ADR 7", "--text", "Titles may hold any language: 日本語のタイトルも使えます。 Keep them short.")
	next()
	if r := s.exec(ttyUnknown, &sequencePrompter{decisions: []Decision{{Choice: choiceApprove}, {Choice: choiceApprove}}}, "review", "--reviewer", "rita"); r.code != 0 {
		t.Fatalf("review: exit %d: %s", r.code, r.stderr)
	}
	next()
	s.must("propose", "--category", "pitfalls", "--reason", "flaky", "--text", "The parser test depends on the locale; set LC_ALL=C.")
	s.must("pref", "add", "--personal", "Answer in British English, and explain each shell command before running it.")
	return s
}

// TestRenderGolden pins what a person sees from each command that renders
// for one: piped (tab-separated, no header, no styling), and on terminals
// of unknown, 80 and 40 columns (aligned, clipped, highlighted).
func TestRenderGolden(t *testing.T) {
	s := renderWorkspace(t)
	terms := []terminal{piped, ttyUnknown, tty80, tty40}
	for _, c := range []struct {
		name string
		args [][]string
		// clipped: the last column ends at the terminal's edge
		clipped bool
	}{
		{"render_list", [][]string{{"list", "--all"}}, true},
		{"render_ready", [][]string{{"ready"}, {"ready", "--limit", "2"}}, true},
		{"render_blocked", [][]string{{"blocked"}}, false},
		{"render_stats", [][]string{{"stats"}}, false},
		{"render_facts", [][]string{{"facts"}, {"facts", "--stats"}}, true},
		{"render_proposals", [][]string{{"review", "--list", "--status", "all"}}, false},
		{"render_pref", [][]string{{"pref", "list"}}, true},
		{"render_recall", [][]string{{"recall", "parser test", "--mode", "bm25", "-k", "3"}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			for _, args := range c.args {
				for _, term := range terms {
					r := s.exec(term, nil, args...)
					checkTerminalOutput(t, term, args, r.stdout, c.clipped && !slices.Contains(args, "--stats"))
					transcript(&b, term, args, r)
				}
			}
			checkGolden(t, c.name, b.String())
		})
	}
}

// TestShowGolden pins show, which is not a table: the same on a terminal
// and piped, every field escaped.
func TestShowGolden(t *testing.T) {
	s := renderWorkspace(t)
	var b strings.Builder
	ids := regexp.MustCompile(`(?m)^\S+`).FindAllString(s.must("list", "--all"), -1)
	for _, id := range ids {
		args := []string{"show", id}
		r := s.exec(piped, nil, args...)
		if tty := s.exec(tty80, nil, args...); tty != r {
			t.Errorf("show %s differs on a terminal:\n%s\npiped:\n%s", id, tty.stdout, r.stdout)
		}
		checkTerminalOutput(t, piped, args, r.stdout, false)
		transcript(&b, piped, args, r)
	}
	checkGolden(t, "render_show", b.String())
}

// sgr is a whole escape sequence that styles text.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// checkTerminalOutput checks what the goldens cannot say on their own:
// every character whole, escapes only on a terminal and only whole ones,
// and clipped lines within the terminal's width.
func checkTerminalOutput(t *testing.T, term terminal, args []string, out string, clipped bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("memctl %q (%s) prints a split character:\n%q", args, term.name, out)
	}
	bare := sgr.ReplaceAllString(out, "")
	if strings.ContainsAny(bare, "\x1b\u202e") {
		t.Errorf("memctl %q (%s) prints an escape that is not a whole styling sequence:\n%q", args, term.name, out)
	}
	if !term.tty && bare != out {
		t.Errorf("memctl %q piped prints styling:\n%q", args, out)
	}
	if !clipped || term.width == 0 {
		return
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.Contains(l, "  ") {
			continue
		}
		// The last column keeps minClip columns however narrow the
		// terminal; past that, a line ends at the edge.
		last := strings.TrimLeft(l[strings.LastIndex(l, "  ")+2:], " ")
		if w := ansi.StringWidth(l); w > term.width && ansi.StringWidth(last) > minClip {
			t.Errorf("memctl %q (%s): %q is %d columns and its last column is not clipped", args, term.name, l, w)
		}
		if w := ansi.StringWidth(l); term.width == 80 && w > 80 {
			t.Errorf("memctl %q (%s): %q is %d columns", args, term.name, l, w)
		}
	}
}
