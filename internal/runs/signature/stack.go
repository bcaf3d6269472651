package signature

import (
	"slices"
	"strings"
)

// topFrames is how many frames of a stack a signature keeps: where the
// failure happened and what called it. Deeper frames (the test harness,
// main, the event loop) differ with how the code was reached, not with
// what failed.
const topFrames = 3

// lineKind says how a kept line is normalised beyond its words.
type lineKind uint8

const (
	plainLine     lineKind = iota
	goFuncLine             // a Go frame's function: its arguments become (...)
	goFileLine             // a Go frame's file: its +0x… offset goes
	rustFrameLine          // a numbered Rust frame: its number and alignment go
	rustAtLine             // the "at file:line" of a Rust frame
)

// line is a line kept for the signature.
type line struct {
	text string
	kind lineKind
}

// lang is the kind of stack a frame belongs to.
type lang uint8

const (
	noFrame   lang = iota
	goStack        // runtime traceback or race report: func(args) + \tfile:line +0x…
	atStack        // Node.js (and Java): "    at fn (file:line:col)"
	pyStack        // Python: '  File "x.py", line 3, in f' + source lines
	rustStack      // Rust backtrace: "  12: crate::f" + "at file:line:col"
)

// frame is one frame of a stack: lines[start:end].
type frame struct {
	start, end int
	lang       lang
	// internal frames belong to the language's runtime or test harness
	// (runtime.gopanic, node:internal/…, core::panicking, <frozen …>):
	// they differ between versions of the tool, not between failures.
	internal bool
	// library frames are in a dependency or the standard library
	// (site-packages, node_modules, the Go module cache, …).
	library bool
}

// keepLines drops what does not identify the failure: blank lines, the
// progress lines of test runners and build tools, all but the top frames of
// each stack, and every goroutine of a Go traceback after the first.
func keepLines(lines []string) []line {
	out := make([]line, 0, len(lines))
	seenGoroutine, otherGoroutine := false, false
	var runs testRuns
	for i := 0; i < len(lines); {
		if f := frameAt(lines, i); f.end > i {
			run := []frame{f}
			for f.end < len(lines) {
				g := frameAt(lines, f.end)
				if g.end == g.start || g.lang != f.lang {
					break
				}
				run = append(run, g)
				f = g
			}
			if !otherGoroutine {
				out = appendTop(out, lines, run)
			}
			i = f.end
			continue
		}
		s := lines[i]
		i++
		t := strings.TrimSpace(s)
		switch {
		case t == "":
			continue
		case isGoroutineHeader(s):
			// The goroutine that failed comes first; the others (a
			// timeout's or GOTRACEBACK=all's) depend on scheduling.
			otherGoroutine = seenGoroutine
			seenGoroutine = true
			if otherGoroutine {
				continue
			}
		case otherGoroutine && (strings.HasPrefix(s, "\t") || strings.HasPrefix(t, "created by ")):
			continue
		}
		otherGoroutine = false
		if name, ok := strings.CutPrefix(t, "=== RUN "); ok {
			runs.started(strings.TrimSpace(name), len(out))
			continue
		}
		if isNoise(s, t) {
			continue
		}
		if name, ok := strings.CutPrefix(t, "--- FAIL: "); ok {
			if at := runs.failed(testName(name)); at >= 0 {
				out = slices.Insert(out, at, line{text: s})
				continue
			}
		}
		out = append(out, line{text: s})
	}
	return out
}

// testRuns remembers where go test -v started each test, to put its
// "--- FAIL" line there: before the test's log, where go test without -v
// prints it, so that both orders give one signature.
type testRuns struct {
	names []string
	at    []int // where in the kept lines each test's output starts
}

// maxTestRuns bounds the tests remembered, and so the work per failure, in
// a long log.
const maxTestRuns = 256

func (r *testRuns) started(name string, at int) {
	if len(r.names) < maxTestRuns {
		r.names = append(r.names, name)
		r.at = append(r.at, at)
	}
}

// failed returns where the "--- FAIL" line of the test belongs, or -1 when
// its start was not seen, and moves the tests started after it down one.
func (r *testRuns) failed(name string) int {
	k := slices.Index(r.names, name)
	if k < 0 {
		return -1
	}
	at := r.at[k]
	r.names = slices.Delete(r.names, k, k+1)
	r.at = slices.Delete(r.at, k, k+1)
	for j := range r.at {
		if r.at[j] >= at {
			r.at[j]++
		}
	}
	return at
}

// testName returns the test of a "--- FAIL: " line: "TestX/sub (0.00s)" →
// "TestX/sub".
func testName(rest string) string {
	name, _, _ := strings.Cut(rest, " ")
	return name
}

// appendTop appends the top frames of run to out: the first ones, or the
// last ones of a Python traceback (most recent call last), leaving out
// internal frames. When the top frames are all in libraries, the frame of
// the project's own code nearest to them is kept too: it says which use of
// the library failed.
func appendTop(out []line, lines []string, run []frame) []line {
	order := make([]frame, 0, len(run))
	for _, f := range run {
		if !f.internal {
			order = append(order, f)
		}
	}
	if run[0].lang == pyStack {
		slices.Reverse(order) // top of the stack first
	}
	kept := order[:min(topFrames, len(order))]
	if !slices.ContainsFunc(kept, func(f frame) bool { return !f.library }) {
		if k := slices.IndexFunc(order, func(f frame) bool { return !f.library }); k >= 0 {
			kept = append(slices.Clip(kept), order[k])
		}
	}
	if run[0].lang == pyStack {
		slices.Reverse(kept)
	}
	for _, f := range kept {
		for k := f.start; k < f.end; k++ {
			kind := plainLine
			switch {
			case f.lang == goStack && k == f.start:
				kind = goFuncLine
			case f.lang == goStack:
				kind = goFileLine
			case f.lang == rustStack && k == f.start:
				kind = rustFrameLine
			}
			out = append(out, line{text: lines[k], kind: kind})
		}
	}
	return out
}

// frameAt returns the frame that starts at lines[i]; its end is i when
// none does.
func frameAt(lines []string, i int) frame {
	f := frameOf(lines, i)
	if f.end > f.start && !f.internal {
		f.library = isLibrary(lines[f.start])
		if f.lang == rustStack && f.end > f.start+1 {
			f.library = isLibrary(lines[f.start+1])
		} else if f.lang == goStack {
			f.library = isLibrary(lines[f.start+1])
		}
	}
	return f
}

// isLibrary reports whether a frame's line names a file of a dependency or
// of the language's library: the directories pathTail keeps the tail of.
func isLibrary(s string) bool {
	for _, dir := range [...]string{"node_modules/", "site-packages/", "dist-packages/", "/pkg/mod/",
		"/registry/src/", "/rustc/", "/lib/python"} {
		if strings.Contains(s, dir) {
			return true
		}
	}
	return false
}

func frameOf(lines []string, i int) frame {
	s := lines[i]
	ind := indentOf(s)
	t := strings.TrimRight(s[ind:], " \t")
	switch {
	case strings.HasPrefix(t, `File "`) && strings.Contains(t, `", line `):
		end := i + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != "" && indentOf(lines[end]) > ind {
			end++ // the source line and Python 3.11's ^^^ markers
		}
		return frame{start: i, end: end, lang: pyStack, internal: strings.HasPrefix(t, `File "<frozen `)}
	case strings.HasPrefix(t, "[Previous line repeated "):
		return frame{start: i, end: i + 1, lang: pyStack, internal: true}
	case ind > 0 && isRustFrame(t):
		// The frame goes on with its "at file:line" and, with
		// RUST_BACKTRACE=full, the functions inlined into it.
		end := i + 1
		for end < len(lines) && indentOf(lines[end]) > ind && strings.TrimSpace(lines[end]) != "" &&
			!isRustFrame(strings.TrimSpace(lines[end])) {
			end++
		}
		return frame{start: i, end: end, lang: rustStack, internal: rustInternal(rustSymbol(t))}
	case ind > 0 && strings.HasPrefix(t, "at "):
		return frame{start: i, end: i + 1, lang: atStack, internal: nodeInternal(t)}
	case t == "...additional frames elided...":
		return frame{start: i, end: i + 1, lang: goStack, internal: true}
	case i+1 < len(lines) && isGoFuncLine(t) && isGoFileLine(lines[i+1], ind):
		fn := strings.TrimPrefix(t, "created by ")
		internal := strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "panic(") || strings.HasPrefix(fn, "testing.")
		return frame{start: i, end: i + 2, lang: goStack, internal: internal}
	}
	return frame{start: i, end: i}
}

func indentOf(s string) int {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// isGoroutineHeader matches "goroutine 7 [running]:" at the start of a
// line, and GOTRACEBACK=system's "goroutine 7 gp=0xc000002380 m=0 [running]:".
func isGoroutineHeader(s string) bool {
	rest, ok := strings.CutPrefix(s, "goroutine ")
	if !ok {
		return false
	}
	n := digits(rest, 0)
	return n > 0 && n < len(rest) && rest[n] == ' ' && strings.Contains(rest, " [") &&
		strings.HasSuffix(strings.TrimRight(rest, " "), "]:")
}

// isGoFuncLine matches the function line of a Go frame: "pkg.f(…)" or
// "created by pkg.f in goroutine 1".
func isGoFuncLine(t string) bool {
	if strings.HasPrefix(t, "created by ") {
		return true
	}
	if !strings.HasSuffix(t, ")") {
		return false
	}
	k := openParen(t)
	return k > 0 && !strings.ContainsAny(t[:k], " \t")
}

// isGoFileLine matches the file line of a Go frame, indented deeper than
// its function: "\t/src/x.go:12 +0x1d".
func isGoFileLine(s string, funcIndent int) bool {
	ind := indentOf(s)
	if ind <= funcIndent {
		return false
	}
	t := strings.TrimRight(s[ind:], " ")
	if k := strings.LastIndex(t, " +0x"); k > 0 {
		t = t[:k]
	}
	k := strings.LastIndexByte(t, ':')
	if k <= 0 || k+1 == len(t) || digits(t, k+1) != len(t)-k-1 {
		return false
	}
	file := t[:k]
	return strings.HasSuffix(file, ".go") || strings.HasSuffix(file, ".s") || file == "<autogenerated>"
}

// isRustFrame matches "12: crate::module::f" of a Rust backtrace, or
// RUST_BACKTRACE=full's "12: 0x55f1b77ea7db - crate::module::f::h0be5…".
func isRustFrame(t string) bool {
	n := digits(t, 0)
	if n == 0 || !strings.HasPrefix(t[n:], ": ") {
		return false
	}
	sym := rustSymbol(t)
	return strings.HasPrefix(strings.TrimLeft(t[n+2:], " "), "0x") || strings.Contains(sym, "::") || sym == "main" || sym == "<unknown>" ||
		strings.HasPrefix(sym, "_") || strings.HasPrefix(sym, "rust_") || strings.HasPrefix(sym, "clone")
}

// rustSymbol returns the function of a numbered Rust frame, without the
// number and, in the full format, the address.
func rustSymbol(t string) string {
	_, sym, _ := strings.Cut(t, ": ")
	sym = strings.TrimLeft(sym, " ")
	if strings.HasPrefix(sym, "0x") {
		if _, after, ok := strings.Cut(sym, " - "); ok {
			return after
		}
	}
	return sym
}

func rustInternal(sym string) bool {
	for _, p := range []string{"std::", "core::", "alloc::", "test::", "<std::", "<core::", "<alloc::", "<test::",
		"rust_begin_unwind", "__rust", "_start", "__libc_", "start_thread", "clone", "<unknown>"} {
		if strings.HasPrefix(sym, p) {
			return true
		}
	}
	return sym == "main" // the C entry point, below the program's own main
}

// nodeInternal reports whether an "at …" frame is Node's own: node:internal,
// a core module (node:events), or an anonymous native frame.
func nodeInternal(t string) bool {
	return strings.Contains(t, "(node:") || strings.HasPrefix(t, "at node:") ||
		strings.Contains(t, "(internal/") || strings.HasPrefix(t, "at internal/") ||
		strings.HasSuffix(t, "(<anonymous>)") || t == "at <anonymous>" || strings.HasSuffix(t, "(native)")
}

// isNoise reports whether a line is progress a test runner or build tool
// prints around failures: it depends on caching, flags and the machine
// (go test -v's === RUN, ok lines; pytest's header; make's directory
// changes; cargo's Compiling), not on what failed.
func isNoise(s, t string) bool {
	switch {
	case strings.HasPrefix(t, "=== RUN"), strings.HasPrefix(t, "=== PAUSE"), strings.HasPrefix(t, "=== CONT"),
		strings.HasPrefix(t, "=== NAME"), strings.HasPrefix(t, "--- PASS: "), strings.HasPrefix(t, "--- SKIP: "),
		t == "PASS":
		return true
	case strings.HasPrefix(t, "test ") && (strings.HasSuffix(t, " ... ok") || strings.HasSuffix(t, " ... ignored")):
		return true // cargo test's tests that passed, in the order they finished
	case strings.HasPrefix(s, "ok  "), strings.HasPrefix(s, "?   ") && strings.HasSuffix(t, "[no test files]"):
		return true // go test's packages that passed or have no tests
	case strings.HasPrefix(s, "platform ") && strings.Contains(s, " -- Python "),
		strings.HasPrefix(s, "rootdir: "), strings.HasPrefix(s, "cachedir: "), strings.HasPrefix(s, "plugins: "),
		strings.HasPrefix(s, "configfile: "), strings.HasPrefix(s, "testpaths: "), strings.HasPrefix(s, "collecting "),
		strings.HasPrefix(s, "collected "), strings.Contains(t, " test session starts "):
		return true // pytest's header
	case strings.HasPrefix(t, "make") && (strings.Contains(t, ": Entering directory ") || strings.Contains(t, ": Leaving directory ")):
		return true
	case strings.Contains(t, "A complete log of this run can be found in"):
		return true // npm's log file, named by the time
	case strings.HasPrefix(s, "Node.js v"), strings.HasPrefix(s, "Time:"):
		return true // the version of node under its stack; jest's timing
	case s != t && isCargoProgress(t):
		return true
	case isGoPackageHeader(s):
		return true // go build's, go vet's and go test's package line over its errors
	}
	return false
}

// isGoPackageHeader reports whether s is the line the go command prints
// over a package's build or vet errors: "# path", "# path [path.test]" or
// "# [path]". The errors under it name their files, so a piped whole
// output and a recorded error line get one signature.
func isGoPackageHeader(s string) bool {
	rest, ok := strings.CutPrefix(s, "# ")
	if !ok || rest == "" {
		return false
	}
	pkg, test, hasTest := strings.Cut(rest, " ")
	if hasTest && !(strings.HasPrefix(test, "[") && strings.HasSuffix(test, ".test]") && !strings.Contains(test, " ")) {
		return false
	}
	pkg = strings.TrimSuffix(strings.TrimPrefix(pkg, "["), "]")
	return pkg != "" && strings.IndexFunc(pkg, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._/-~", r))
	}) < 0
}

func isCargoProgress(t string) bool {
	word, _, ok := strings.Cut(t, " ")
	if !ok {
		return false
	}
	switch word {
	case "Compiling", "Checking", "Finished", "Running", "Doc-tests", "Downloaded", "Downloading",
		"Updating", "Locking", "Adding", "Blocking", "Fresh", "Documenting":
		return true
	}
	return false
}

// digits returns how many ASCII digits s has from i on.
func digits(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] >= '0' && s[i+n] <= '9' {
		n++
	}
	return n
}
