package cli

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/memctl/memctl/internal/fsx"
)

func newManCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "man <dir>",
		Short: "Write a man page for every command into a directory",
		Long: `Man writes memctl.1 and one page per command (memctl-show.1,
memctl-dep-add.1, …) into dir, created if missing, from the same text as
--help. Release archives and packages ship them; after installing by hand:

  memctl man ~/.local/share/man/man1`,
		Example: "  memctl man man/man1 && man -l man/man1/memctl-ready.1",
		Args:    cobra.ExactArgs(1),
		RunE:    func(cmd *cobra.Command, args []string) error { return runMan(cmd.Context(), env, cmd.Root(), args[0]) },
	}
}

// runMan writes the pages of root's tree (the whole tree: commandFor
// builds it for man).
func runMan(_ context.Context, env *Env, root *cobra.Command, dir string) error {
	if _, err := fsx.MkdirAll(dir); err != nil {
		return err
	}
	n := 0
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		if !c.IsAvailableCommand() && c != root { // hidden ones too
			return nil
		}
		name := manName(c)
		if err := fsx.WriteDerived(filepath.Join(dir, name+".1"), manPage(c)); err != nil {
			return err
		}
		n++
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		return err
	}
	env.notef("wrote %d man pages to %s", n, dir)
	return nil
}

// manName is c's page's name: memctl-hooks-install.
func manName(c *cobra.Command) string { return strings.ReplaceAll(c.CommandPath(), " ", "-") }

// manPage is c's page in man(7) format.
func manPage(c *cobra.Command) []byte {
	var b bytes.Buffer
	name := manName(c)
	fmt.Fprintf(&b, ".TH %q 1 \"\" %q \"memctl manual\"\n", strings.ToUpper(name), "memctl "+Version())
	b.WriteString(".SH NAME\n")
	fmt.Fprintf(&b, "%s \\- %s\n", roffText(name), roffText(c.Short))
	b.WriteString(".SH SYNOPSIS\n")
	fmt.Fprintf(&b, ".B %s\n", roffText(c.CommandPath()))
	if rest := strings.TrimSpace(strings.TrimPrefix(c.UseLine(), c.CommandPath())); rest != "" {
		b.WriteString(roffLine(rest) + "\n")
	}
	b.WriteString(".SH DESCRIPTION\n")
	roffParagraphs(&b, cmp.Or(c.Long, c.Short))
	if flags := manFlags(c); len(flags) > 0 {
		b.WriteString(".SH OPTIONS\n")
		for _, f := range flags {
			b.WriteString(".TP\n")
			names := `\fB\-\-` + roffText(f.Name) + `\fR`
			if f.Shorthand != "" {
				names = `\fB\-` + roffText(f.Shorthand) + `\fR, ` + names
			}
			arg, usage := pflag.UnquoteUsage(f)
			if arg != "" {
				names += " " + `\fI` + roffText(arg) + `\fR`
			}
			b.WriteString(names + "\n")
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" && f.DefValue != "0" {
				usage += " (default " + f.DefValue + ")"
			}
			b.WriteString(roffLine(usage) + "\n")
		}
	}
	if c.Example != "" {
		b.WriteString(".SH EXAMPLES\n.nf\n")
		for _, l := range strings.Split(strings.TrimRight(c.Example, "\n"), "\n") {
			b.WriteString(roffLine(strings.TrimPrefix(l, "  ")) + "\n")
		}
		b.WriteString(".fi\n")
	}
	var see []*cobra.Command
	if p := c.Parent(); p != nil {
		see = append(see, p)
	}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			see = append(see, sub)
		}
	}
	if len(see) > 0 {
		b.WriteString(".SH SEE ALSO\n")
		var refs []string
		for _, s := range see {
			refs = append(refs, `\fB`+manName(s)+`\fR(1)`)
		}
		b.WriteString(strings.Join(refs, ", ") + "\n")
	}
	return b.Bytes()
}

// manFlags are c's own and inherited flags that are not hidden, by name.
func manFlags(c *cobra.Command) []*pflag.Flag {
	var out []*pflag.Flag
	seen := map[string]bool{}
	add := func(f *pflag.Flag) {
		if !f.Hidden && !seen[f.Name] {
			seen[f.Name] = true
			out = append(out, f)
		}
	}
	c.NonInheritedFlags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	slices.SortFunc(out, func(a, b *pflag.Flag) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// roffParagraphs writes text: blank lines part paragraphs, indented lines
// (commands, examples) are kept as they are.
func roffParagraphs(b *bytes.Buffer, text string) {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	literal := false
	for i, l := range lines {
		indented := strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "\t")
		switch {
		case strings.TrimSpace(l) == "":
			if literal {
				b.WriteString(".fi\n")
				literal = false
			}
			if i+1 < len(lines) {
				b.WriteString(".PP\n")
			}
			continue
		case indented && !literal:
			b.WriteString(".nf\n")
			literal = true
		case !indented && literal:
			b.WriteString(".fi\n")
			literal = false
		}
		b.WriteString(roffLine(l) + "\n")
	}
	if literal {
		b.WriteString(".fi\n")
	}
}

// roffText escapes text for use inside a line: backslashes, hyphens, and
// every character outside ASCII as a named Unicode escape (\[u2014]), which
// groff and mandoc read whatever the locale.
func roffText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r > 0x7e:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// roffLine escapes one line of text: a line that would start with a
// control character is protected.
func roffLine(s string) string {
	s = roffText(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
