package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// docsPath is a path into memctl's own docs/ folder, which a user's
// repository does not have; what memctl prints points to memctl help.
var docsPath = regexp.MustCompile(`docs/[a-z-]+\.md`)

// TestNothingPrintedPointsIntoDocs: no string in memctl's code (hints,
// errors, flag help) names a docs/ file.
func TestNothingPrintedPointsIntoDocs(t *testing.T) {
	root := filepath.Join("..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && docsPath.MatchString(s) {
					t.Errorf("%s: %q points into docs/; point to memctl help TOPIC instead", fset.Position(lit.Pos()), docsPath.FindString(s))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, s := range []string{c.Long, c.Example, c.Short, c.Flags().FlagUsages()} {
			if docsPath.MatchString(s) {
				t.Errorf("%s: its help names %s", c.CommandPath(), docsPath.FindString(s))
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(&Env{Getenv: func(string) string { return "" }}))
}
