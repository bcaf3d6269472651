package signature

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/memctl/memctl/internal/secrets"
)

// TestNormalizeLine pins each rule on one line: what is replaced and, as
// much, what is kept.
func TestNormalizeLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"a line number and a column become <n>", "./main.go:12:5: undefined: foo", "./main.go:<n>:<n>: undefined: foo"},
		{"numbers in words stay", "error[E0308] in x86_64 for int64 with utf8 and TestParse2", "error[E0308] in x86_64 for int64 with utf8 and TestParse2"},
		{"a version after a letter stays", "go1.22.1 and v1.2.3 and python3.11", "go1.22.1 and v1.2.3 and python3.11"},
		{"a bare version or address is a number", "Python 3.11.4 on 127.0.0.1:8080", "Python <n> on <n>:<n>"},
		{"ordinals and sizes stay words", "the 3rd try, a 64bit build", "the 3rd try, a 64bit build"},
		{"a negative number keeps its sign", "got -1, want 42.5", "got -<n>, want <n>"},
		{"hex addresses", "object at 0x7f3b2c1d0e50, pc=0x5b3c2f", "object at <hex>, pc=<hex>"},
		{"a hash with digits and letters", "commit 3f9c2a1e7b4d and build e3b0c44298fc", "commit <hex> and build <hex>"},
		{"words of hex letters stay", "deadbeef facade decade", "deadbeef facade decade"},
		{"a short hex-like word stays", "abc123 is fine", "abc123 is fine"},
		{"a UUID", "request 3f9c2a1e-7b4d-4e2a-9c1f-0a8b6d5e4f3c failed", "request <uuid> failed"},
		{"an upper-case UUID", "ID 3F9C2A1E-7B4D-4E2A-9C1F-0A8B6D5E4F3C", "ID <uuid>"},
		{"RFC 3339", "at 2026-11-23T10:04:12Z and 2026-11-23T10:04:12.311+01:00 then", "at <time> and <time> then"},
		{"Python logging", "2026-11-23 10:04:12,311 ERROR boom", "<time> ERROR boom"},
		{"Go's log", "2026/11/23 10:04:12.311520 listen failed", "<time> listen failed"},
		{"Go's time.Time", "deadline 2026-11-23 10:04:12.311 +0000 UTC passed", "deadline <time> passed"},
		{"a date alone", "since 2026-11-23.", "since <time>."},
		{"a time of day", "[10:04:12] build failed", "[<time>] build failed"},
		{"syslog", "Nov 23 10:04:12 host sshd[4127]: error", "<time> host sshd[<n>]: error"},
		{"syslog with a padded day", "Nov  3 10:04:12 host cron", "<time> host cron"},
		{"date(1)", "Mon Nov 23 10:04:12 UTC 2026: started", "<time>: started"},
		{"RFC 1123", "Date: Mon, 23 Nov 2026 10:04:12 GMT", "Date: <time>"},
		{"a web server's log", `[23/Nov/2026:10:04:12 +0000] "GET /x"`, `[<time>] "GET x"`},
		{"a month name without a time or year stays", "Nov 23 is a date", "Nov <n> is a date"},
		{"line:col:col is not a time", "x.go:12:34:56: bad", "x.go:<n>:<n>:<n>: bad"},
		{"Go durations", "ok after 0.012s, 12ms, 1m30.5s, 2h0m0s and 850µs", "ok after <dur>, <dur>, <dur>, <dur> and <dur>"},
		{"durations with unit words", "finished in 0.52 seconds, took 12 ms, 1.234 s", "finished in <dur>, took <dur>, <dur>"},
		{"one s is not a duration", "Error 1 s", "Error <n> s"},
		{"a timing in parentheses goes", "--- FAIL: TestX (0.01s)", "--- FAIL: TestX"},
		{"an absolute path keeps its base name", "open /home/alice/src/app/config.toml: no such file", "open config.toml: no such file"},
		{"a path in quotes", `File "/Users/bob/app/x.py", line 3`, `File "x.py", line <n>`},
		{"a path in parentheses", "at f (/srv/app/src/x.js:3:9)", "at f (x.js:<n>:<n>)"},
		{"a path after =", "GOCACHE=/home/alice/.cache/go-build", "GOCACHE=go-build"},
		{"a home path", "cannot read ~/app/.env", "cannot read .env"},
		{"a Windows path", `open C:\Users\bob\app\main.go: denied`, "open main.go: denied"},
		{"a file URL", "at file:///home/alice/web/src/a.mjs:4:16", "at a.mjs:<n>:<n>"},
		{"node_modules keeps the package", "at g (/home/a/web/node_modules/@scope/pkg/node_modules/dep/i.js:1:2)", "at g (node_modules/dep/i.js:<n>:<n>)"},
		{"site-packages keeps the package", `"/opt/venv/lib/python3.12/site-packages/requests/api.py"`, `"site-packages/requests/api.py"`},
		{"dist-packages reads as site-packages", `"/usr/lib/python3/dist-packages/requests/api.py"`, `"site-packages/requests/api.py"`},
		{"Python's standard library", `"/usr/lib/python3.11/json/decoder.py"`, `"json/decoder.py"`},
		{"the Go module cache keeps the module", "\t/root/go/pkg/mod/github.com/pkg/errors@v0.9.1/errors.go:12", "  github.com/pkg/errors@v0.9.1/errors.go:<n>"},
		{"cargo's registry keeps the crate", "at /home/a/.cargo/registry/src/index.crates.io-6f17d22bba15001f/serde-1.0.190/src/de.rs:5:1", "at serde-1.0.190/src/de.rs:<n>:<n>"},
		{"rustc's library", "at /rustc/07dca489ac2d933c78d3c5158e3f43beefeb02ce/library/core/src/result.rs:1:2", "at library/core/src/result.rs:<n>:<n>"},
		{"a temporary name", "rm /tmp/tmpk3j_x9az failed; mktemp gave /tmp/tmp.AbC123xYz0", "rm <tmp> failed; mktemp gave <tmp>"},
		{"a random number in a name", "cd /tmp/go-build3194729380/b001 and /tmp/TestLoad3194729380", "cd b001 and TestLoad<n>"},
		{"a URL is not a path", "GET https://example.com/api/v1 failed", "GET https://example.com/api/v1 failed"},
		{"a comment is not a path", "x := 1 // see /docs", "x := <n> // see docs"},
		{"a slash alone", "a / b", "a / b"},
		{"a ratio is not a path", "1/2 done", "<n>/<n> done"},
		{"indentation becomes two spaces", "\t\t    deep", "  deep"},
		{"spaces inside a line become one", "Tests:       1 failed,   22 total   ", "Tests: <n> failed, <n> total"},
		{"a rule is three long", "======== FAILURES ______________ x ---- y", "=== FAILURES ___ x --- y"},
		{"make's *** stays", "make: *** [Makefile:12: test] Error 1", "make: *** [Makefile:<n>: test] Error <n>"},
		{"letters of other scripts are words", "échec3 › étape 2 …", "échec3 › étape <n> …"},
		{"a Greek word with digits stays", "λ2 and ß3", "λ2 and ß3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Normalize(tc.in); got != tc.want {
				t.Errorf("Normalize(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestNormalizeText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"colours are stripped", "\x1b[1;31merror\x1b[0m: \x1b[1mboom\x1b[22m", "error: boom"},
		{"a title and a hyperlink are stripped", "\x1b]0;title\x07see \x1b]8;;https://x.y\x1b\\docs\x1b]8;;\x1b\\ now", "see docs now"},
		{"CRLF is a newline", "first\r\nsecond\r\n", "first\nsecond"},
		{"a redrawn progress line is one line", "50%\r75%\r100%\r\nerror: boom", "<n>%\nerror: boom"},
		{"blank lines go", "a\n\n\n   \nb", "a\nb"},
		{"a repeated line is kept once", "retry failed\nretry failed\nretry failed\ngave up", "retry failed\ngave up"},
		{"controls and bidi overrides go", "bad\x00\x07 na\u202eme\u2066 \u0085x\ufeff", "bad name x"},
		{"bytes that are not UTF-8 become U+FFFD", "bad \xff\xfe byte", "bad \ufffd\ufffd byte"},
		{"empty text", "", ""},
		{"only noise", "\x1b[32m\x1b[0m\n=== RUN   TestX\n--- PASS: TestX (0.00s)\nPASS\n", ""},
		{"go test's passing packages go", "ok  \tgithub.com/a/b\t(cached)\n?   \tgithub.com/a/c\t[no test files]\nFAIL\tgithub.com/a/d\t0.1s", "FAIL github.com/a/d <dur>"},
		{"make's directory changes go", "make[1]: Entering directory '/home/a/x'\nboom\nmake[1]: Leaving directory '/home/a/x'", "boom"},
		{"cargo's progress goes", "   Compiling app v0.1.0 (/home/a/app)\n    Finished `dev` profile in 3.1s\nerror: boom", "error: boom"},
		{"an unindented Compiling line stays", "Compiling failed", "Compiling failed"},
		{"go build's package headers go", "# example.com/app/internal\ninternal/x.go:3:2: undefined: y", "internal/x.go:<n>:<n>: undefined: y"},
		{"go test's and vet's package headers go", "# example.com/app [example.com/app.test]\n# [example.com/app]\nx_test.go:3: bad", "x_test.go:<n>: bad"},
		{"a module without a dot", "# command-line-arguments\n./main.go:5:1: syntax error", "./main.go:<n>:<n>: syntax error"},
		{"a Markdown heading stays", "# Build failed\nboom", "# Build failed\nboom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Normalize(tc.in); got != tc.want {
				t.Errorf("Normalize(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestStacks pins which frames are kept: the top three that are not the
// runtime's own, in each stack of a text, and only the first goroutine.
func TestStacks(t *testing.T) {
	t.Parallel()
	node := func(n int, internal bool) string {
		var b strings.Builder
		b.WriteString("Error: boom\n")
		for i := range n {
			if internal && i%2 == 0 {
				b.WriteString("    at Module._load (node:internal/modules/cjs/loader:960:12)\n")
			}
			b.WriteString("    at f" + itoa(i) + " (/app/src/f" + itoa(i) + ".js:1:2)\n")
		}
		return b.String()
	}
	for _, tc := range []struct{ name, in, want string }{
		{"the first three frames of ten", node(10, false), "Error: boom\n  at f0 (f0.js:<n>:<n>)\n  at f1 (f1.js:<n>:<n>)\n  at f2 (f2.js:<n>:<n>)"},
		{"fewer than three frames all stay", node(2, false), "Error: boom\n  at f0 (f0.js:<n>:<n>)\n  at f1 (f1.js:<n>:<n>)"},
		{"internal frames do not count", node(4, true), "Error: boom\n  at f0 (f0.js:<n>:<n>)\n  at f1 (f1.js:<n>:<n>)\n  at f2 (f2.js:<n>:<n>)"},
		{
			"Python keeps the innermost three",
			"Traceback (most recent call last):\n" +
				"  File \"/a/m.py\", line 1, in <module>\n    main()\n" +
				"  File \"/a/m.py\", line 5, in main\n    a()\n" +
				"  File \"<frozen importlib._bootstrap>\", line 9, in _load\n" +
				"  File \"/a/m.py\", line 9, in a\n    b()\n" +
				"  File \"/a/m.py\", line 12, in b\n    raise ValueError(\"x\")\n" +
				"ValueError: x",
			"Traceback (most recent call last):\n" +
				"  File \"m.py\", line <n>, in main\n  a()\n" +
				"  File \"m.py\", line <n>, in a\n  b()\n" +
				"  File \"m.py\", line <n>, in b\n  raise ValueError(\"x\")\n" +
				"ValueError: x",
		},
		{
			"a library's frames bring the nearest own frame",
			"Error: boom\n" +
				"    at a (/w/node_modules/x/a.js:1:1)\n    at b (/w/node_modules/x/b.js:1:1)\n" +
				"    at c (/w/node_modules/x/c.js:1:1)\n    at d (/w/node_modules/x/d.js:1:1)\n" +
				"    at mine (/w/src/mine.js:1:1)\n    at main (/w/src/main.js:1:1)",
			"Error: boom\n" +
				"  at a (node_modules/x/a.js:<n>:<n>)\n  at b (node_modules/x/b.js:<n>:<n>)\n" +
				"  at c (node_modules/x/c.js:<n>:<n>)\n  at mine (mine.js:<n>:<n>)",
		},
		{
			"only the first goroutine of a Go traceback",
			"panic: boom\n\ngoroutine 1 [running]:\nmain.f(0xc000012345)\n\t/a/main.go:5 +0x1d\nmain.main()\n\t/a/main.go:9 +0x25\n\n" +
				"goroutine 6 [chan receive, 2 minutes]:\nmain.worker()\n\t/a/w.go:3 +0x11\ncreated by main.main in goroutine 1\n\t/a/main.go:8 +0x1f\nexit status 2",
			"panic: boom\ngoroutine <n> [running]:\nmain.f(...)\n  main.go:<n>\nmain.main()\n  main.go:<n>\nexit status <n>",
		},
		{
			"GOTRACEBACK=system's goroutine headers",
			"panic: boom\n\ngoroutine 1 gp=0xc000002380 m=0 mp=0x5b2f60 [running]:\nmain.main()\n\t/a/main.go:9 +0x25\n\n" +
				"goroutine 2 gp=0xc000002e00 m=nil [force gc (idle)]:\nruntime.gopark(0x0?, 0x0?, 0x0?, 0x0?, 0x0?)\n\t/go/src/runtime/proc.go:402 +0xce\nexit status 2",
			"panic: boom\ngoroutine <n> gp=<hex> m=<n> mp=<hex> [running]:\nmain.main()\n  main.go:<n>\nexit status <n>",
		},
		{
			"Go's runtime and testing frames do not count",
			"goroutine 7 [running]:\npanic({0x5f1e40?, 0x8a3b50?})\n\t/go/src/runtime/panic.go:770 +0x132\n" +
				"testing.tRunner(0xc0001a6820, 0x6b2f08)\n\t/go/src/testing/testing.go:1689 +0xfb\n" +
				"created by testing.(*T).Run in goroutine 1\n\t/go/src/testing/testing.go:1742 +0x390",
			"goroutine <n> [running]:",
		},
		{
			"Rust frames lose their numbers",
			"stack backtrace:\n   9: app::f\n             at ./src/f.rs:1:2\n  10: app::main\n  11: std::rt::lang_start\n  12: main",
			"stack backtrace:\n  app::f\n  at ./src/f.rs:<n>:<n>\n  app::main",
		},
		{
			"two stacks keep three each",
			node(5, false) + "Caused by: Error: inner\n" + strings.ReplaceAll(node(5, false), "Error: boom\n", ""),
			"Error: boom\n  at f0 (f0.js:<n>:<n>)\n  at f1 (f1.js:<n>:<n>)\n  at f2 (f2.js:<n>:<n>)\n" +
				"Caused by: Error: inner\n  at f0 (f0.js:<n>:<n>)\n  at f1 (f1.js:<n>:<n>)\n  at f2 (f2.js:<n>:<n>)",
		},
		{
			"RUST_BACKTRACE=full: addresses, hashes and inlined frames",
			"stack backtrace:\n" +
				"   0:     0x55f1b77ea7db - std::backtrace_rs::backtrace::libunwind::trace::h5a5b8284f2d0c266\n" +
				"                               at /rustc/38213856a8a3a6d49a234e0d95a722a4f28a2b18/library/std/src/backtrace.rs:116:5\n" +
				"   1:     0x55f1b77e1234 - app::config::parse_port::h0be520bdeb30de61\n" +
				"                               at /home/a/app/src/config.rs:41:10\n" +
				"                           app::config::load::hd504aa0dad344db7\n" +
				"                               at /home/a/app/src/config.rs:18:16\n" +
				"   2:     0x55f1b77e5678 - app::main::h348dc73109f901c9\n" +
				"                               at /home/a/app/src/main.rs:7:18\n" +
				"  13:     0x7f3e525c2088 - start_thread\n" +
				"  14:     0x7f3e52645f8c - clone3\n" +
				"  15:                0x0 - <unknown>",
			"stack backtrace:\n  app::config::parse_port::<hex>\n  at config.rs:<n>:<n>\n  app::config::load::<hex>\n  at config.rs:<n>:<n>\n" +
				"  app::main::<hex>\n  at main.rs:<n>:<n>",
		},
		{"a Rust thread id goes", "thread 'main' (6543) panicked at src/main.rs:3:5:", "thread 'main' panicked at src/main.rs:<n>:<n>:"},
		{"a numbered list is not a Rust stack", "  1: first\n  2: second\n  3: third\n  4: fourth", "  <n>: first\n  <n>: second\n  <n>: third\n  <n>: fourth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Normalize(tc.in); got != tc.want {
				t.Errorf("Normalize:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestOf(t *testing.T) {
	t.Parallel()
	s := Of("  panic: boom at 0x1f  \n")
	if s.Text != "  panic: boom at <hex>" {
		t.Errorf("Text = %q", s.Text)
	}
	// printf "  panic: boom at <hex>" | sha256sum | cut -c1-12
	if s.Hash != "887e8255b553" || len(s.Hash) != HashLen {
		t.Errorf("Hash = %q", s.Hash)
	}
	if e := Of(""); e.Hash != "e3b0c44298fc" || e.Text != "" {
		t.Errorf("Of(\"\") = %+v, want the hash of nothing", e)
	}
	if Of("x\r\n") != Of("x") {
		t.Error("Of depends on the line ending")
	}
}

// TestCleanDropsWhatTheGateRefuses keeps clean's set of removed characters
// the write gate's: the normalised text goes into playbooks.
func TestCleanDropsWhatTheGateRefuses(t *testing.T) {
	t.Parallel()
	for r := rune(0); r <= 0x3000; r++ {
		if r == '\r' || r == 0x1b {
			continue // a line break, an escape: handled before
		}
		s := string(r)
		kept := strings.Contains(clean("a"+s+"b"), s)
		if secrets.MayAct(r) == kept {
			t.Errorf("U+%04X: gate refuses %v, clean keeps %v", r, secrets.MayAct(r), kept)
		}
	}
	for _, s := range []string{"\x1b[31mred", "x\x1b", "x\x1b[", "x\x1b]0;t", "\xff\xc3"} {
		if c := clean(s); !utf8.ValidString(c) || strings.ContainsRune(c, 0x1b) {
			t.Errorf("clean(%q) = %q", s, c)
		}
	}
}

// TestNormalizeIsStable: normalising normalised text changes nothing, so a
// signature can be recomputed from a stored normalised text.
func TestNormalizeIsStable(t *testing.T) {
	t.Parallel()
	for _, text := range benchTexts() {
		n := Normalize(text)
		if again := Normalize(n); again != n {
			t.Errorf("Normalize is not idempotent:\n%s\n--- again:\n%s\n--- %s", n, again, lineDiff(n, again))
		}
	}
}
