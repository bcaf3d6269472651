package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/memctl/memctl/internal/proposal"
)

// Review choices.
const (
	choiceApprove = "approve"
	choiceEdit    = "edit"
	choiceReject  = "reject"
	choiceSkip    = "skip"
	choiceQuit    = "quit"
)

// Why an interactive review stops before its end. Both are exit 130, and
// both leave every decision taken so far applied and nothing half-applied.
var (
	errInterrupted error = stopError("review interrupted")
	errEndOfInput  error = stopError("review stopped at the end of input, before a decision")
)

// stopError is an interrupt (it matches context.Canceled: exit 130) that
// says why in its own words.
type stopError string

func (e stopError) Error() string        { return string(e) }
func (e stopError) Is(target error) bool { return target == context.Canceled }

// Decision is what a reviewer chose for one proposal: the choice, and the
// edited fact or the feedback that goes with it. An edit always changes
// the text: an empty or unchanged edit goes back to the choice.
type Decision struct {
	Choice string
	Text   string
}

// Prompter asks a reviewer to decide on a proposal. screen is the text to
// show, already escaped for the terminal; it is shown as it is (no Markdown).
// refused is nil the first time; when the write gate refused the decision
// taken, the same proposal is asked about again with the refusal, which the
// prompter shows, starting from the refused choice and text. An error that
// matches context.Canceled is an interrupt. The shipped prompters use huh
// (full screen) and plain lines (accessible); tests may put in a scripted one.
type Prompter interface {
	Decide(ctx context.Context, screen string, p *proposal.Proposal, refused *Refusal) (Decision, error)
}

// Refusal is a decision that the write gate refused (a secret, a control
// character, a fact over max_fact_chars): nothing was applied, and the
// reviewer can change the text, reject or skip.
type Refusal struct {
	Decision     Decision // as the reviewer took it
	Reason, Hint string   // the gate's message and what to do
}

// note is the refusal as the prompters show it.
func (r *Refusal) note() string {
	s := "Not applied: " + r.Reason
	if r.Hint != "" {
		s += "\nhint: " + r.Hint
	}
	return visible(s)
}

// choice is where a refused decision puts the cursor: on the choice taken,
// and on the edit when an approval was refused, since only an edit can
// change the text.
func (r *Refusal) choice(p *proposal.Proposal) string {
	if r.Decision.Choice == choiceApprove && p.Action != proposal.ActionRemove && !p.IsPlaybook() {
		return choiceEdit
	}
	return r.Decision.Choice
}

type option struct{ label, choice string }

// options are the choices a proposal offers: a removal has no text to
// edit, nor has a playbook proposal (a reviewer rejects steps with
// feedback).
func options(p *proposal.Proposal) []option {
	opts := []option{{"Approve", choiceApprove}, {"Edit, then approve", choiceEdit}, {"Reject with feedback", choiceReject},
		{"Skip for now", choiceSkip}, {"Quit", choiceQuit}}
	if p.Action == proposal.ActionRemove || p.IsPlaybook() {
		opts = append(opts[:1], opts[2:]...)
	}
	return opts
}

// edited reports whether text is a real edit of p's content: not empty,
// and neither the content nor the content as the edit field showed it
// (escaped, so that the field cannot drive the terminal).
func edited(p *proposal.Proposal, text string) bool {
	text = strings.TrimSpace(text)
	return text != "" && text != p.Content && text != strings.TrimSpace(visible(p.Content))
}

// linePrompts ask for the text an edit or a rejection needs, in
// accessible mode.
var linePrompts = map[string]string{
	choiceEdit:   "The fact as it should read, on one line (empty: back to the choice):",
	choiceReject: "Feedback for the agent, why and what to do instead (empty: back to the choice):",
}

// linePrompter asks line by line on plain input and output, for screen
// readers and scripts (--accessible). Lines are read in the background so
// that an interrupt ends a prompt at once instead of at the next Enter.
type linePrompter struct {
	out   io.Writer
	lines chan string // closed at the end of input
}

func newLinePrompter(in io.Reader, out io.Writer) *linePrompter {
	lp := &linePrompter{out: out, lines: make(chan string)}
	go func() {
		defer close(lp.lines)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			lp.lines <- strings.TrimSuffix(sc.Text(), "\r")
		}
	}()
	return lp
}

// line returns the next line of input.
func (lp *linePrompter) line(ctx context.Context) (string, error) {
	select {
	case <-ctx.Done():
		return "", errInterrupted
	case l, ok := <-lp.lines:
		if !ok {
			return "", errEndOfInput
		}
		return l, nil
	}
}

func (lp *linePrompter) Decide(ctx context.Context, screen string, p *proposal.Proposal, refused *Refusal) (Decision, error) {
	if refused != nil {
		head, _, _ := strings.Cut(screen, "\n")
		fmt.Fprintf(lp.out, "%s: %s\n", head, refused.note())
	} else {
		fmt.Fprintln(lp.out, screen)
	}
	for {
		choice, err := lp.choose(ctx, options(p))
		if err != nil {
			return Decision{}, err
		}
		ask, ok := linePrompts[choice]
		if !ok {
			return Decision{Choice: choice}, nil
		}
		fmt.Fprintln(lp.out, ask)
		text, err := lp.line(ctx)
		if err != nil {
			return Decision{}, err
		}
		d := Decision{Choice: choice, Text: text}
		if note := backNote(p, d, false); note != "" {
			fmt.Fprintln(lp.out, note)
			continue
		}
		return d, nil
	}
}

// choose lists the options and reads a number until one is valid; q quits.
func (lp *linePrompter) choose(ctx context.Context, opts []option) (string, error) {
	fmt.Fprintln(lp.out, "Decision")
	for i, o := range opts {
		fmt.Fprintf(lp.out, "%d. %s\n", i+1, o.label)
	}
	for {
		fmt.Fprintf(lp.out, "Enter a number between 1 and %d (q quits): ", len(opts))
		s, err := lp.line(ctx)
		if err != nil {
			fmt.Fprintln(lp.out)
			return "", err
		}
		s = strings.TrimSpace(s)
		if s == "q" {
			return choiceQuit, nil
		}
		if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(opts) {
			return opts[n-1].choice, nil
		}
		fmt.Fprintf(lp.out, "%s is not one of the choices.\n", strconv.Quote(s))
	}
}

// huhPrompter asks with a full-screen huh form on the terminal.
type huhPrompter struct {
	in  io.Reader
	out io.Writer
}

func (h *huhPrompter) Decide(ctx context.Context, screen string, p *proposal.Proposal, refused *Refusal) (Decision, error) {
	// A field that goes back to the choice leaves the cursor on the
	// choice made, and says why above it: Enter must not then approve.
	choice, note := choiceApprove, ""
	// The fields start from the fact, escaped like the screen (the file
	// may come from a pull, and the gate refuses the raw characters on
	// approval anyway), or from the text the gate refused, to be fixed.
	drafts := map[string]string{choiceEdit: visible(p.Content)}
	if refused != nil {
		choice, note = refused.choice(p), refused.note()
		if refused.Decision.Choice != choiceApprove {
			drafts[refused.Decision.Choice] = visible(refused.Decision.Text)
		}
	}
	for {
		opts := make([]huh.Option[string], 0, 5)
		for _, o := range options(p) {
			opts = append(opts, huh.NewOption(o.label, o.choice))
		}
		// The first line of the screen ("[n of m] id") titles the choice,
		// so that it stays in view when a short terminal cuts the screen.
		head, _, _ := strings.Cut(screen, "\n")
		help := "esc or q: quit the review"
		if note != "" {
			help = note + "\n" + help
		}
		sel := huh.NewSelect[string]().Title("Decision on " + head).Description(help).Options(opts...).Value(&choice)
		left, err := h.run(ctx, screen, []string{"esc", "q"}, sel)
		if err != nil {
			return Decision{}, err
		}
		if left {
			return Decision{Choice: choiceQuit}, nil
		}
		d := Decision{Choice: choice, Text: drafts[choice]}
		var field *huh.Text
		switch choice {
		case choiceEdit:
			field = huh.NewText().Title("The fact as it should read").Description("enter: approve • esc: back to the choice").Value(&d.Text)
		case choiceReject:
			field = huh.NewText().Title("Feedback for the agent (why, and what to do instead)").Description("enter: reject • esc: back to the choice").Value(&d.Text)
		default:
			return d, nil
		}
		left, err = h.run(ctx, "", []string{"esc"}, field)
		if err != nil {
			return Decision{}, err
		}
		if note = backNote(p, d, left); note == "" && !left {
			return d, nil
		}
	}
}

// What the review says when an edit or a rejection goes back to the choice.
const (
	noteEmptyEdit     = "The edit was empty; nothing approved."
	noteUnchangedEdit = "The edit left the fact unchanged; nothing approved."
	noteNoFeedback    = "No feedback given; nothing rejected."
)

// backNote says why d, an edit or a rejection, goes back to the choice
// instead of being applied: "" when it does not, or when the reviewer left
// the field (Esc) and knows why.
func backNote(p *proposal.Proposal, d Decision, left bool) string {
	switch {
	case left:
		return ""
	case d.Choice == choiceEdit && strings.TrimSpace(d.Text) == "":
		return noteEmptyEdit
	case d.Choice == choiceEdit && !edited(p, d.Text):
		return noteUnchangedEdit
	case d.Choice == choiceReject && strings.TrimSpace(d.Text) == "":
		return noteNoFeedback
	}
	return ""
}

// run shows body (the proposal, literally, in a pane that PgUp and PgDn
// scroll) above fields until they are submitted (false), one of the leave
// keys is pressed (true), or Ctrl-C or a signal interrupts (errInterrupted).
func (h *huhPrompter) run(ctx context.Context, body string, leave []string, fields ...huh.Field) (bool, error) {
	km := huh.NewDefaultKeyMap()
	km.Select.Filter.SetEnabled(false) // five options need no filter, and q must quit
	form := huh.NewForm(huh.NewGroup(fields...)).WithKeyMap(km)
	form.SubmitCmd, form.CancelCmd = tea.Quit, tea.Interrupt
	m := newScreenModel(form, body, leave)
	// Signals are the context's (main cancels it on SIGINT and SIGTERM):
	// bubbletea's own handler would end the program on SIGTERM as if the
	// form had been answered, and the default choice would be applied.
	final, err := tea.NewProgram(m, tea.WithInput(h.in), tea.WithOutput(h.out), tea.WithContext(ctx), tea.WithoutSignalHandler()).Run()
	switch {
	case errors.Is(err, tea.ErrInterrupted), ctx.Err() != nil:
		return false, errInterrupted
	case err != nil:
		return false, fmt.Errorf("review screen: %w", err)
	}
	fm := final.(*screenModel)
	if !fm.left && fm.form.State != huh.StateCompleted {
		return false, errInterrupted // ended without an answer
	}
	return fm.left, nil
}

// screenModel is one screen of the full-screen review: the proposal in a
// pane above a huh form (the choice, or a text field). The pane is plain
// text: huh would render a note as Markdown, and show a fact other than
// the one approved. When the proposal is taller than the terminal leaves
// room for, the pane shows its top and PgUp/PgDn scroll it; the form stays
// in view.
type screenModel struct {
	form       *huh.Form
	body       string
	pane       viewport.Model
	scrollable bool
	leave      key.Binding
	left       bool
}

func newScreenModel(form *huh.Form, body string, leave []string) *screenModel {
	return &screenModel{form: form, body: strings.TrimRight(body, "\n"), leave: key.NewBinding(key.WithKeys(leave...))}
}

func (m *screenModel) Init() tea.Cmd { return m.form.Init() }

func (m *screenModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, m.leave):
			m.left = true
			return m, tea.Quit
		case msg.Type == tea.KeyPgUp:
			m.pane.PageUp()
			return m, nil
		case msg.Type == tea.KeyPgDown:
			m.pane.PageDown()
			return m, nil
		}
	case tea.WindowSizeMsg:
		f, cmd := m.form.Update(msg)
		m.form = f.(*huh.Form)
		m.layout(msg.Width, msg.Height)
		return m, cmd
	}
	f, cmd := m.form.Update(msg)
	m.form = f.(*huh.Form)
	return m, cmd
}

// layout fits the pane in what the form leaves of a width×height terminal.
func (m *screenModel) layout(width, height int) {
	if m.body == "" {
		return
	}
	text := indent(ansi.Wrap(m.body, max(width-2, 20), ""))
	lines := strings.Count(text, "\n") + 1
	room := height - lipgloss.Height(m.form.View()) - 2 // a blank line, and the scroll line
	m.pane = viewport.New(width, max(min(lines, room), 3))
	m.pane.SetContent(text)
	m.scrollable = lines > m.pane.Height
}

func (m *screenModel) View() string {
	if m.left {
		return ""
	}
	if m.body == "" {
		return m.form.View()
	}
	var b strings.Builder
	b.WriteString(m.pane.View())
	b.WriteString("\n")
	if m.scrollable {
		first := m.pane.YOffset + 1
		fmt.Fprintf(&b, "  pgup/pgdn: scroll (lines %d–%d of %d)", first, min(first+m.pane.Height-1, m.pane.TotalLineCount()), m.pane.TotalLineCount())
	}
	b.WriteString("\n")
	b.WriteString(m.form.View())
	return b.String()
}
