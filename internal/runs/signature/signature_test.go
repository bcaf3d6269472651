package signature

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", os.Getenv("MEMCTL_UPDATE") == "1", "rewrite the want files of testdata/*.txtar (also MEMCTL_UPDATE=1, as make golden sets)")

// TestRealOutputs runs the error outputs in testdata/*.txtar, real output
// of Go, Python, Node, Rust and shell tools. A case <c> has <c>.a, the
// failure on one machine; <c>.b, the same failure on another (another home
// and temporary directory, lines shifted, other timings, addresses and
// goroutine ids), which must get the same signature; <c>.differs-<what>,
// another failure (another message, error type or test), which must not;
// and <c>.want, the normalised text of <c>.a, which -update (make golden)
// rewrites. A new case needs all four; the want file may start empty.
func TestRealOutputs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		changed := false
		for _, c := range cases(t, file, ar) {
			t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar")+"/"+c.name, func(t *testing.T) {
				a := Of(c.a)
				if a.Text == "" {
					t.Fatalf("%s.a normalises to nothing", c.name)
				}
				if b := Of(c.b); b != a {
					t.Errorf("the same failure on another machine got another signature:\n%s\n--- a: %s\n%s\n--- b: %s\n%s",
						lineDiff(a.Text, b.Text), a.Hash, a.Text, b.Hash, b.Text)
				}
				for _, d := range c.differs {
					if o := Of(d.text); o.Hash == a.Hash {
						t.Errorf("%s: another failure got the same signature %s:\n%s", d.name, a.Hash, a.Text)
					}
				}
				if *update {
					ar.Files[c.want].Data = []byte(a.Text + "\n")
					changed = true
					return
				}
				if want := strings.TrimSuffix(string(ar.Files[c.want].Data), "\n"); a.Text != want {
					t.Errorf("normalised text (go test -update rewrites it):\n%s\n--- got:\n%s\n--- want:\n%s", lineDiff(want, a.Text), a.Text, want)
				}
			})
		}
		if changed {
			if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

type realCase struct {
	name    string
	a, b    string
	differs []namedText
	want    int // index of the want file in the archive
}

type namedText struct{ name, text string }

func cases(t *testing.T, file string, ar *txtar.Archive) []realCase {
	var out []realCase
	byName := map[string]int{}
	for i, f := range ar.Files {
		name, part, ok := strings.Cut(f.Name, ".")
		if !ok {
			t.Fatalf("%s: file %q is not <case>.<part>", file, f.Name)
		}
		k, seen := byName[name]
		if !seen {
			k = len(out)
			byName[name] = k
			out = append(out, realCase{name: name, want: -1})
		}
		c := &out[k]
		switch {
		case part == "a":
			c.a = string(f.Data)
		case part == "b":
			c.b = string(f.Data)
		case part == "want":
			c.want = i
		case strings.HasPrefix(part, "differs-"):
			c.differs = append(c.differs, namedText{part, string(f.Data)})
		default:
			t.Fatalf("%s: file %q: part %q is not a, b, want or differs-*", file, f.Name, part)
		}
	}
	for _, c := range out {
		if c.a == "" || c.b == "" || c.want < 0 || len(c.differs) == 0 {
			t.Fatalf("%s: case %q needs a, b, want and at least one differs-*", file, c.name)
		}
	}
	return out
}

// lineDiff names the first line where a and b differ.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "first difference at line " + itoa(i+1) + ":\n  " + al[i] + "\n  " + bl[i]
		}
	}
	if len(al) != len(bl) {
		return "one has more lines than the other"
	}
	return "no difference"
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
