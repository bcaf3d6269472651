package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"
	"github.com/charmbracelet/x/ansi"
	git "github.com/go-git/go-git/v5"

	"github.com/memctl/memctl/internal/proposal"
	"github.com/memctl/memctl/internal/secrets/secretstest"
)

// scriptedPrompter answers every proposal with its decision and keeps the
// screens it was shown.
type scriptedPrompter struct {
	decision Decision
	screens  []string
}

func (s *scriptedPrompter) Decide(_ context.Context, screen string, _ *proposal.Proposal, _ *Refusal) (Decision, error) {
	s.screens = append(s.screens, screen)
	return s.decision, nil
}

// workspace makes a git repository with memctl initialised and returns an
// Env working in it, its clock pinned.
func workspace(t testing.TB) (*Env, string) {
	t.Helper()
	dir := t.TempDir()
	if _, err := git.PlainInit(dir, false); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	vars := map[string]string{"HOME": home, "XDG_CONFIG_HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": filepath.Join(home, "none"), "MEMCTL_ACTOR": "agent"}
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	newEnv := func() *Env {
		return &Env{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}, StdinTTY: true, StdoutTTY: true,
			Getenv: func(k string) string { return vars[k] }, Getwd: func() (string, error) { return dir, nil },
			Now: func() time.Time { return now }, Rand: bytes.NewReader(bytes.Repeat([]byte{7}, 4096))}
	}
	if code := Main(context.Background(), []string{"init"}, newEnv()); code != 0 {
		t.Fatalf("init: exit %d", code)
	}
	return newEnv(), dir
}

func run(t *testing.T, env *Env, args ...string) string {
	t.Helper()
	if code := Main(context.Background(), args, env); code != 0 {
		t.Fatalf("memctl %s: exit %d: %s", strings.Join(args, " "), code, env.Err.(*bytes.Buffer))
	}
	return env.Out.(*bytes.Buffer).String()
}

// fact has every character huh's Markdown and a terminal would change.
const literalFact = "Run `go test -run 'Test_*'` with *two* __underscores__, a \\ and [x](y) <b>not bold</b> & friends."

func TestReviewScreenIsTheProposalVerbatim(t *testing.T) {
	env, dir := workspace(t)
	run(t, env, "propose", "--category", "pitfalls", "--reason", "see _why_ *now*", "--text", literalFact)

	fake := &scriptedPrompter{decision: Decision{Choice: choiceApprove}}
	env.Prompter = fake
	env.Out, env.Err = &bytes.Buffer{}, &bytes.Buffer{}
	run(t, env, "review", "--reviewer", "rita")
	if len(fake.screens) != 1 {
		t.Fatalf("prompted %d times, want once", len(fake.screens))
	}
	screen := fake.screens[0]
	if !strings.Contains(screen, "\n  "+literalFact+"\n") {
		t.Errorf("the screen does not show the fact byte for byte:\n%s", screen)
	}
	if !strings.Contains(screen, "\nReason: see _why_ *now*\n") {
		t.Errorf("the screen does not show the reason byte for byte:\n%s", screen)
	}
	facts, err := os.ReadFile(filepath.Join(dir, ".ledger", "facts", "pitfalls.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(facts), "\n- "+literalFact+" <!-- id:") {
		t.Errorf("the approved line is not the fact shown:\n%s", facts)
	}

	// The full screen shows the same text: rendered, with its styling
	// taken off, it holds every line of the screen as it is.
	m := newScreenModel(huh.NewForm(huh.NewGroup(huh.NewSelect[string]().Options(huh.NewOption("Approve", "a")))), screen, []string{"q"})
	m.Init()
	m.Update(tea.WindowSizeMsg{Width: 400, Height: 100})
	view := ansi.Strip(m.View())
	for _, line := range strings.Split(strings.TrimRight(screen, "\n"), "\n") {
		if !strings.Contains(view, line) {
			t.Errorf("the rendered screen changes the line %q:\n%s", line, view)
		}
	}
}

func TestFullScreenScrollsALongProposal(t *testing.T) {
	t.Parallel()
	var long strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	m := newScreenModel(huh.NewForm(huh.NewGroup(huh.NewSelect[string]().Title("Decision on [1 of 1] p-1").Options(huh.NewOption("Approve", "a")))), long.String(), []string{"q"})
	m.Init()
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 20})
	view := ansi.Strip(m.View())
	if h := strings.Count(view, "\n") + 1; h > 20 {
		t.Errorf("the screen is %d rows in a 20-row terminal:\n%s", h, view)
	}
	for _, want := range []string{`(?m)^  line 1 *$`, `Decision on \[1 of 1\] p-1`, `pgup/pgdn: scroll \(lines 1–`} {
		if !regexp.MustCompile(want).MatchString(view) {
			t.Errorf("the first view lacks %s:\n%s", want, view)
		}
	}
	for range 5 {
		m.Update(tea.KeyMsg{Type: tea.KeyPgDown})
	}
	if view := ansi.Strip(m.View()); !regexp.MustCompile(`(?m)^  line 40 *$`).MatchString(view) || !strings.Contains(view, "Decision on") {
		t.Errorf("PgDn does not reach the end with the choice in view:\n%s", view)
	}
}

func TestReviewScreenEscapesControlCharacters(t *testing.T) {
	env, dir := workspace(t)
	run(t, env, "propose", "--category", "pitfalls", "--reason", "r", "--text", "Plain fact.")
	// A proposal file edited by hand (or pulled) may hold anything.
	names, _ := filepath.Glob(filepath.Join(dir, ".ledger", "proposals", "*.json"))
	data, _ := os.ReadFile(names[0])
	data = bytes.Replace(data, []byte("Plain fact."), []byte(`Plain \u001b[2Jfact\u202e.`), 1)
	if err := os.WriteFile(names[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	fake := &scriptedPrompter{decision: Decision{Choice: choiceSkip}}
	env.Prompter = fake
	run(t, env, "review")
	if got := fake.screens[0]; strings.ContainsAny(got, "\x1b\u202e") || !strings.Contains(got, `Plain \x1b[2Jfact\u202e.`) {
		t.Errorf("control characters reach the screen unescaped:\n%q", got)
	}
}

// TestFullScreenKeys drives the huh prompter with keystrokes, as a
// terminal in raw mode delivers them.
func TestFullScreenKeys(t *testing.T) {
	t.Parallel()
	add := &proposal.Proposal{ID: "p-1", Action: proposal.ActionAdd, Content: "A fact."}
	for _, c := range []struct {
		name, keys string
		want       string // the choice, or "interrupted"
	}{
		{"enter approves", "\r", choiceApprove},
		{"q quits the review", "q", choiceQuit},
		{"esc quits the review", "\x1b", choiceQuit},
		{"ctrl-c interrupts", "\x03", "interrupted"},
		{"down three times and enter skips", "\x1b[B\x1b[B\x1b[B\r", choiceSkip},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in, w := io.Pipe() // never closed: a terminal does not end
			go w.Write([]byte(c.keys))
			d, err := (&huhPrompter{in: in, out: io.Discard}).Decide(context.Background(), "[1 of 1] p-1\nscreen", add, nil)
			got := d.Choice
			if errors.Is(err, context.Canceled) {
				got = "interrupted"
			} else if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("keys %q: got %s, want %s", c.keys, got, c.want)
			}
		})
	}
	t.Run("a cancelled context interrupts at once", func(t *testing.T) {
		t.Parallel()
		in, _ := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := (&huhPrompter{in: in, out: io.Discard}).Decide(ctx, "s", add, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("Decide = %v, want an interrupt", err)
		}
	})
}

// screenDriver types keys into the full-screen prompter as a person at a
// terminal does: each step waits until the screen shows its text, then
// types its keys. The keys go through an os.Pipe: like a terminal it is a
// file, so bubbletea cancels its read when a form ends and every key goes
// to the form on screen.
type screenDriver struct {
	mu     sync.Mutex
	screen strings.Builder // everything drawn, styling stripped
	seen   int             // how much of screen the steps so far matched
	steps  []keyStep
	keys   *os.File
}

type keyStep struct{ await, keys string }

func driveScreen(t *testing.T, steps ...keyStep) (in *os.File, d *screenDriver) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, &screenDriver{steps: steps, keys: w}
}

func (d *screenDriver) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.screen.WriteString(ansi.Strip(string(p)))
	for len(d.steps) > 0 && strings.Contains(d.screen.String()[d.seen:], d.steps[0].await) {
		d.seen = d.screen.Len()
		if _, err := d.keys.WriteString(d.steps[0].keys); err != nil {
			return 0, err
		}
		d.steps = d.steps[1:]
	}
	return len(p), nil
}

func (d *screenDriver) String() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.screen.String()
}

// TestFullScreenBackToTheChoice: a field that goes back to the choice
// leaves the cursor on the choice made, and the screen says why, so that
// the next Enter does not approve by accident.
func TestFullScreenBackToTheChoice(t *testing.T) {
	t.Parallel()
	const down, enter = "\x1b[B", "\r"
	add := &proposal.Proposal{ID: "p-1", Action: proposal.ActionAdd, Content: "A fact."}
	for _, c := range []struct {
		name  string
		steps []keyStep
		want  Decision
		note  string
	}{
		{"empty feedback", []keyStep{{"Decision on", down + down + enter}, {"Feedback for the agent", enter},
			{"Decision on", enter}, {"Feedback for the agent", "Not a pitfall" + enter}},
			Decision{Choice: choiceReject, Text: "Not a pitfall"}, "No feedback given; nothing rejected."},
		{"unchanged edit", []keyStep{{"Decision on", down + enter}, {"The fact as it should read", enter},
			{"Decision on", enter}, {"The fact as it should read", " Really." + enter}},
			Decision{Choice: choiceEdit, Text: "A fact. Really."}, "The edit left the fact unchanged; nothing approved."},
		{"esc in the feedback", []keyStep{{"Decision on", down + down + enter}, {"Feedback for the agent", "\x1b"},
			{"Decision on", enter}, {"Feedback for the agent", "Not a pitfall" + enter}},
			Decision{Choice: choiceReject, Text: "Not a pitfall"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in, out := driveScreen(t, c.steps...)
			got, err := (&huhPrompter{in: in, out: out}).Decide(context.Background(), "[1 of 1] p-1\nscreen", add, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got %+v, want %+v; the screens:\n%s", got, c.want, out)
			}
			if !strings.Contains(out.String(), c.note) {
				t.Errorf("the screen does not say %q:\n%s", c.note, out)
			}
		})
	}
}

// sequencePrompter answers with its decisions in turn, then quits, and
// keeps the screens and refusals it was shown. meanwhile, if set, runs
// before the nth answer (from 0) is given: what others do while the
// reviewer reads.
type sequencePrompter struct {
	decisions []Decision
	refusals  []*Refusal
	screens   []string
	meanwhile func(n int)
}

func (s *sequencePrompter) Decide(_ context.Context, screen string, _ *proposal.Proposal, refused *Refusal) (Decision, error) {
	s.refusals = append(s.refusals, refused)
	s.screens = append(s.screens, screen)
	if s.meanwhile != nil {
		s.meanwhile(len(s.screens) - 1)
	}
	if len(s.decisions) == 0 {
		return Decision{Choice: choiceQuit}, nil
	}
	d := s.decisions[0]
	s.decisions = s.decisions[1:]
	return d, nil
}

// TestReviewAsksAgainAfterARefusal: a decision the write gate refuses is
// not applied and not a failure; the same proposal is asked about again
// with the reason, and the next decision is applied.
func TestReviewAsksAgainAfterARefusal(t *testing.T) {
	secret := secretstest.Secrets()[0]
	for _, c := range []struct {
		name    string
		refused Decision
		reason  string // in the refusal
		hint    string
	}{
		{"a secret in the edit", Decision{Choice: choiceEdit, Text: "Keep the token: " + secret.Text}, `field "text" contains what looks like a secret: ` + secret.Rule, "remove the credential"},
		{"an escape in the edit", Decision{Choice: choiceEdit, Text: "A fact in \x1b[31mred."}, `field "text" has an escape character`, "remove the character"},
		{"an edit over max_fact_chars", Decision{Choice: choiceEdit, Text: strings.Repeat("long ", 201)}, "the text is 1004 characters, over the limit of 1000", "state the fact in a sentence or two"},
		{"a secret in the feedback", Decision{Choice: choiceReject, Text: "Ask for " + secret.Text}, `field "feedback" contains what looks like a secret`, "remove the credential"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, dir := workspace(t)
			run(t, env, "propose", "--category", "pitfalls", "--reason", "r", "--text", "Plain fact.")
			fake := &sequencePrompter{decisions: []Decision{c.refused, {Choice: choiceReject, Text: "Not a pitfall"}}}
			env.Prompter = fake
			env.Out, env.Err = &bytes.Buffer{}, &bytes.Buffer{}
			run(t, env, "review") // exit 0: nothing failed
			if len(fake.refusals) != 2 || fake.refusals[0] != nil || fake.refusals[1] == nil {
				t.Fatalf("refusals shown = %v, want none, then one", fake.refusals)
			}
			r := fake.refusals[1]
			if r.Decision != c.refused || !strings.Contains(r.Reason, c.reason) || !strings.HasPrefix(r.Hint, c.hint) {
				t.Errorf("refusal = %+v, want the decision %+v, a reason with %q and a hint %q…", r, c.refused, c.reason, c.hint)
			}
			if strings.Contains(r.note(), secret.Text[20:]) {
				t.Errorf("the refusal shows the secret: %s", r.note())
			}
			stderr := env.Err.(*bytes.Buffer).String()
			if !strings.Contains(stderr, "approved 0, edited 0, rejected 1, skipped 0\n") || strings.Contains(stderr, "failed") {
				t.Errorf("summary:\n%s", stderr)
			}
			facts, err := os.ReadFile(filepath.Join(dir, ".ledger", "facts", "pitfalls.md"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(facts), "Plain fact") || strings.Contains(string(facts), "\x1b") {
				t.Errorf("the facts file changed:\n%s", facts)
			}
		})
	}
}

// TestReviewAsksToEditAProposalTheGateRefuses: a proposal file that
// arrives with a secret cannot be approved as it is; the refusal puts the
// reviewer on the edit.
func TestReviewAsksToEditAProposalTheGateRefuses(t *testing.T) {
	env, dir := workspace(t)
	run(t, env, "propose", "--category", "pitfalls", "--reason", "r", "--text", "Plain fact.")
	names, _ := filepath.Glob(filepath.Join(dir, ".ledger", "proposals", "*.json"))
	data, _ := os.ReadFile(names[0])
	data = bytes.Replace(data, []byte("Plain fact."), []byte("Plain fact. "+secretstest.Secrets()[0].Text), 1)
	if err := os.WriteFile(names[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	fake := &sequencePrompter{decisions: []Decision{{Choice: choiceApprove}, {Choice: choiceEdit, Text: "Plain fact."}}}
	env.Prompter = fake
	env.Out, env.Err = &bytes.Buffer{}, &bytes.Buffer{}
	run(t, env, "review")
	p, _ := proposal.Decode(data, names[0])
	if len(fake.refusals) != 2 || fake.refusals[1] == nil || fake.refusals[1].choice(p) != choiceEdit {
		t.Fatalf("refusals = %v, want a refused approval that puts the cursor on the edit", fake.refusals)
	}
	if stderr := env.Err.(*bytes.Buffer).String(); !strings.Contains(stderr, "approved 0, edited 1, rejected 0, skipped 0\n") {
		t.Errorf("summary:\n%s", stderr)
	}
}

// TestFullScreenShowsARefusal: asked again after a refusal, the screen
// says why, the cursor is on the refused choice (on the edit for an
// approval) and the field starts from the refused text, to be fixed.
func TestFullScreenShowsARefusal(t *testing.T) {
	t.Parallel()
	const enter = "\r"
	add := &proposal.Proposal{ID: "p-1", Action: proposal.ActionAdd, Content: "A fact."}
	for _, c := range []struct {
		name    string
		refused Decision
		field   string
		typed   string // before Enter
		want    Decision
	}{
		{"edit", Decision{Choice: choiceEdit, Text: "A fact in \x1b[31mred."}, "The fact as it should read", "", Decision{Choice: choiceEdit, Text: `A fact in \x1b[31mred.`}},
		{"approval", Decision{Choice: choiceApprove}, "The fact as it should read", " Fixed.", Decision{Choice: choiceEdit, Text: "A fact. Fixed."}},
		{"rejection", Decision{Choice: choiceReject, Text: "Ask for the key."}, "Feedback for the agent", "", Decision{Choice: choiceReject, Text: "Ask for the key."}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in, out := driveScreen(t, keyStep{"Decision on", enter}, keyStep{c.field, c.typed + enter})
			refused := &Refusal{Decision: c.refused, Reason: `field "text" says no`, Hint: "fix it"}
			got, err := (&huhPrompter{in: in, out: out}).Decide(context.Background(), "[1 of 1] p-1\nscreen", add, refused)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got %+v, want %+v; the screens:\n%s", got, c.want, out)
			}
			for _, want := range []string{`Not applied: field "text" says no`, "hint: fix it"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("the screen does not say %q:\n%s", want, out)
				}
			}
		})
	}
}
