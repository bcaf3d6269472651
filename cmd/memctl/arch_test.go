package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// layer ranks the internal packages: a package may import only packages of
// a lower rank (STYLE.md §1: cli ─► prime, recall, agents, mcp ─► proposal,
// runs, index ─► ledger, tasks, embed ─► fsx, gitx, config, ids). config
// finds the workspace through gitx, so it sits one step above the base.
var layer = map[string]int{
	"cli":   5,
	"check": 4, "prime": 4, "recall": 4, "mcp": 4,
	"proposal": 3, "runs": 3, "index": 3, "agents": 3,
	"ledger": 2, "tasks": 2, "embed": 2,
	"config": 1,
	"gitx":   0, "fsx": 0, "ids": 0, "secrets": 0,
}

const modulePrefix = "github.com/memctl/memctl/internal/"

// TestArchitecture keeps the dependency direction and keeps terminals,
// exits and the clock out of the domain packages.
func TestArchitecture(t *testing.T) {
	root := filepath.Join("..", "..", "internal")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		pkg := strings.Split(filepath.ToSlash(rel), "/")[0]
		rank, known := layer[pkg]
		if !known {
			t.Errorf("%s: package %q has no layer in arch_test.go; add it", path, pkg)
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if dep, ok := strings.CutPrefix(p, modulePrefix); ok {
				dep = strings.Split(dep, "/")[0]
				if dep != pkg && layer[dep] >= rank {
					t.Errorf("%s imports %s: %s (layer %d) may import only lower layers than itself", path, p, pkg, rank)
				}
			}
			if pkg != "cli" && (strings.HasPrefix(p, "github.com/spf13/") || strings.HasPrefix(p, "github.com/charmbracelet/")) {
				t.Errorf("%s imports %s: only internal/cli may use cobra or terminal UI packages", path, p)
			}
		}
		if pkg == "cli" {
			return nil
		}
		full, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if full.Name.Name == "main" {
			// A generator run by go generate (internal/secrets/gen) is a
			// tool of its own, not domain code.
			return nil
		}
		ast.Inspect(full, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			name := x.Name + "." + sel.Sel.Name
			switch {
			case name == "time.Now", name == "os.Exit", name == "os.Stdout", name == "os.Stderr",
				x.Name == "fmt" && strings.HasPrefix(sel.Sel.Name, "Print"):
				t.Errorf("%s: %s uses %s; domain packages take the clock and writers from their caller", fset.Position(sel.Pos()), pkg, name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
