package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// layer ranks the internal packages: a package may import only packages of
// a lower rank (STYLE.md §1: cli ─► prime, recall, agents, mcp ─► proposal,
// runs, index ─► ledger, tasks, embed ─► fsx, gitx, config, ids). config
// finds the workspace through gitx, so it sits one step above the base.
// The front-ends share the composition root app, which opens every part
// of a workspace, recall's index included; cli sits above mcp only because
// a cobra command (memctl mcp) starts the server.
var layer = map[string]int{
	"cli":   7,
	"mcp":   6,
	"app":   5,
	"check": 4, "consolidate": 4, "audit": 4, "status": 4, "prime": 4, "recall": 4, "archive": 4, "trigger": 4,
	"proposal": 3, "runs": 3, "index": 3, "agents": 3, "hooks": 3,
	"ledger": 2, "tasks": 2, "embed": 2,
	"doctor": 5, // beside app: a front-end hands it app's embedder, index and lock
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
			// A generator run by go generate (internal/secrets/gitleakscheck/gen) is a
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

// TestRecallAndIndexOwnNoJSON: the --json shapes of recall, index and eval
// are the CLI's types (internal/cli/recalljson.go). An exported struct of
// the recall or index package with a json tag would be a second contract
// that a rename changes silently. Unexported types may decode input files.
func TestRecallAndIndexOwnNoJSON(t *testing.T) {
	fset := token.NewFileSet()
	for _, pkg := range []string{"recall", "index"} {
		dir := filepath.Join("..", "..", "internal", pkg)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				ts, ok := n.(*ast.TypeSpec)
				if !ok || !ts.Name.IsExported() {
					return true
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					return true
				}
				for _, field := range st.Fields.List {
					if field.Tag != nil && strings.Contains(field.Tag.Value, "json:") {
						t.Errorf("%s: %s.%s has a json tag; give the CLI its own output type", fset.Position(field.Pos()), pkg, ts.Name.Name)
					}
				}
				return true
			})
		}
	}
}

// TestLayerMapIsDocumented: docs/development.md's table of layers is the
// layer map above, so the document cannot list the packages wrongly again.
func TestLayerMapIsDocumented(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "docs", "development.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| ([0-9]) \| (.*) \|$`)
	name := regexp.MustCompile("`([a-z]+)`")
	documented := map[string]int{}
	for _, m := range row.FindAllStringSubmatch(string(src), -1) {
		rank, _ := strconv.Atoi(m[1])
		for _, n := range name.FindAllStringSubmatch(m[2], -1) {
			documented[n[1]] = rank
		}
	}
	for pkg, rank := range layer {
		if got, ok := documented[pkg]; !ok || got != rank {
			t.Errorf("docs/development.md puts %q in layer %d (listed: %v); arch_test says %d", pkg, got, ok, rank)
		}
	}
	for pkg := range documented {
		if _, ok := layer[pkg]; !ok {
			t.Errorf("docs/development.md lists %q, which has no layer in arch_test.go", pkg)
		}
	}
}
