package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// memctl man writes one page per command of the whole tree, each a
// well-formed man(7) page in ASCII (groff, when installed, reads them
// without a warning).
func TestManPagesCoverTheTree(t *testing.T) {
	t.Parallel()
	env, _ := workspace(t)
	dir := filepath.Join(t.TempDir(), "man1")
	run(t, env, "man", dir)
	var want []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || (c.HasParent() && !c.IsAvailableCommand()) {
			return
		}
		want = append(want, strings.ReplaceAll(c.CommandPath(), " ", "-")+".1")
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(env))
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) || len(want) < 60 {
		t.Errorf("%d pages for %d commands", len(entries), len(want))
	}
	groff, _ := exec.LookPath("groff")
	for _, name := range want {
		page, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("no page %s: %v", name, err)
			continue
		}
		cmd := strings.TrimSuffix(name, ".1")
		if !bytes.HasPrefix(page, []byte(`.TH "`+strings.ToUpper(cmd)+`" 1`)) || !bytes.Contains(page, []byte(".SH NAME\n"+strings.ReplaceAll(cmd, "-", `\-`)+` \- `)) {
			t.Errorf("%s: no title or name line:\n%.200s", name, page)
		}
		for i, c := range page {
			if c > 0x7e || (c < 0x20 && c != '\n') {
				t.Errorf("%s: byte %#x at %d: pages are ASCII", name, c, i)
				break
			}
		}
		if groff != "" {
			var stderr bytes.Buffer
			g := exec.CommandContext(context.Background(), groff, "-man", "-Tutf8", "-ww", "-z")
			g.Stdin, g.Stderr = bytes.NewReader(page), &stderr
			if err := g.Run(); err != nil || stderr.Len() > 0 {
				t.Errorf("%s: groff: %v %s", name, err, stderr.String())
			}
		}
	}
	ready, _ := os.ReadFile(filepath.Join(dir, "memctl-ready.1"))
	for _, s := range []string{".SH OPTIONS", `\fB\-\-limit\fR \fIn\fR`, ".SH EXAMPLES", ".SH SEE ALSO", `\fBmemctl\fR(1)`} {
		if !bytes.Contains(ready, []byte(s)) {
			t.Errorf("memctl-ready.1 lacks %q", s)
		}
	}
}
