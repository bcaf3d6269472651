package transcript

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTestResults(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		out  string
		want []Test
	}{
		"go -v with subtests and a skip": {
			"=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n=== RUN   TestB/empty_input\n    --- FAIL: TestB/empty_input (0.00s)\n--- FAIL: TestB (0.00s)\n--- SKIP: TestC (0.00s)\nFAIL\tgithub.com/x/y\t0.1s",
			[]Test{{"TestA", "pass"}, {"TestB/empty_input", "fail"}, {"TestB", "fail"}, {"TestC", "skip"}},
		},
		"go package lines are not tests": {"ok  \tgithub.com/x/y\t0.1s\nFAIL\tgithub.com/x/z [build failed]", nil},
		"pytest summary and -v": {
			"tests/test_a.py::test_one PASSED                                   [ 33%]\ntests/test_a.py::test_two FAILED                                   [ 66%]\ntests/test_a.py::test_three SKIPPED (no db)                          [100%]\n=========================== short test summary info ============================\nFAILED tests/test_a.py::test_two - assert 1 == 2\nERROR tests/test_b.py::test_setup - fixture 'db' not found",
			// The summary repeats a failure; the session keeps one result per name.
			[]Test{{"tests/test_a.py::test_one", "pass"}, {"tests/test_a.py::test_two", "fail"}, {"tests/test_a.py::test_three", "skip"}, {"tests/test_a.py::test_two", "fail"}, {"tests/test_b.py::test_setup", "fail"}},
		},
		"jest": {
			"FAIL src/sum.test.js\n  sum\n    ✓ adds positives (3 ms)\n    ✕ adds negatives (5 ms)\n    ○ skipped adds floats\n  ● sum › adds negatives\n",
			[]Test{{"adds positives", "pass"}, {"adds negatives", "fail"}, {"adds floats", "skip"}},
		},
		"cargo": {
			"running 3 tests\ntest a::ok_case ... ok\ntest a::bad_case ... FAILED\ntest a::later ... ignored, slow\n\ntest result: FAILED. 1 passed; 1 failed; 1 ignored",
			[]Test{{"a::ok_case", "pass"}, {"a::bad_case", "fail"}, {"a::later", "skip"}},
		},
		"plain output": {"hello\nerror: nothing here is a test\n--- FAIL", nil},
		// memctl and bd print ✓ too: without a jest or vitest report around
		// them, those lines are not tests.
		"check marks outside a test report": {"✓ Updated issue: app-3f2\n✓ Closed app-9k1: Closed\n✕ nothing", nil},
		"vitest":                            {" ✓ src/a.test.ts > parses (2ms)\n × src/a.test.ts > fails\n\n Test Files  1 failed (1)\n      Tests  1 failed | 1 passed (2)", []Test{{"src/a.test.ts > parses", "pass"}, {"src/a.test.ts > fails", "fail"}}},
	} {
		t.Run(name, func(t *testing.T) {
			var got []Test
			testResults(tc.out, func(n, s string) { got = append(got, Test{n, s}) })
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("testResults:\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestTaskOps(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string][2][]string{
		"memctl update app-3f2 --claim":                                             {{"app-3f2"}, nil},
		"bd update bd-a1b2 --status in_progress --json":                             {{"bd-a1b2"}, nil},
		"bd update bd-a1b2 --status=in_progress":                                    {{"bd-a1b2"}, nil},
		"memctl update app-1 -s in_progress":                                        {{"app-1"}, nil},
		"memctl update app-1 --status closed":                                       {nil, {"app-1"}},
		"memctl update app-1 --priority 1 --assignee dev":                           {nil, nil},
		"memctl update app-1 --title in_progress-work --claim":                      {{"app-1"}, nil},
		`memctl close app-1 app-2.1 --reason "done, see app-9z9"`:                   {nil, {"app-1", "app-2.1"}},
		"bd close bd-x1 -r fixed":                                                   {nil, {"bd-x1"}},
		"cd /w && GIT_PAGER=cat /usr/local/bin/memctl close app-7 && go test ./...": {nil, {"app-7"}},
		"memctl close app-1 | tee log; bd update app-2 --claim":                     {{"app-2"}, {"app-1"}},
		"memctl --json close app-1":                                                 {nil, {"app-1"}},
		"echo memctl close app-1":                                                   {nil, nil},
		"memctl show app-1":                                                         {nil, nil},
		"memctl close ./...":                                                        {nil, nil},
		"memctl close":                                                              {nil, nil},
		"git commit -m 'memctl close app-1'":                                        {nil, nil},
	} {
		claims, closes := taskOps(cmd)
		if !reflect.DeepEqual(claims, want[0]) || !reflect.DeepEqual(closes, want[1]) {
			t.Errorf("taskOps(%q) = claims %q, closes %q; want %q, %q", cmd, claims, closes, want[0], want[1])
		}
	}
}

func TestShellWords(t *testing.T) {
	t.Parallel()
	got := shellSegments(`a 'b c' "d \"e\"" f\ g && h || i; j | k & l` + "\nm $(x) `y`")
	want := [][]string{{"a", "b c", `d "e"`, "f g"}, {"h"}, {"i"}, {"j"}, {"k"}, {"l"}, {"m", "$(x)", "`y`"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("shellSegments:\n got %q\nwant %q", got, want)
	}
}

func TestErrorExcerpt(t *testing.T) {
	t.Parallel()
	if got := errorExcerpt("\x1b[1;31merror\x1b[0m: \x1b]8;;file:///x\x07link\x1b]8;;\x07 broke\n\n"); got != "error: link broke" {
		t.Errorf("errorExcerpt strips escapes and trims: got %q", got)
	}
	// A long output is cut to 2 KiB starting at its first error line.
	long := strings.Repeat("compiling something long\n", 200) + "--- FAIL: TestX (0.00s)\n" + strings.Repeat("détail ", 400)
	got := errorExcerpt(long)
	if !strings.HasPrefix(got, "--- FAIL: TestX") || len(got) > maxExcerpt || !utf8.ValidString(got) {
		t.Errorf("errorExcerpt of a long output: %d bytes, valid %v, starts %q", len(got), utf8.ValidString(got), got[:min(40, len(got))])
	}
	// Without an error line, the tail is kept.
	got = errorExcerpt(strings.Repeat("é", 3000) + "end")
	if !strings.HasSuffix(got, "end") || len(got) > maxExcerpt || !utf8.ValidString(got) {
		t.Errorf("errorExcerpt without an error line: %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
}

func TestTailAndHeadKeepCharacters(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("日本", 1000)
	for n := range 8 {
		if got := tail(s, 100+n); !utf8.ValidString(got) || len(got) > 100+n || len(got) < 100+n-3 {
			t.Errorf("tail(%d) = %d bytes, valid %v", 100+n, len(got), utf8.ValidString(got))
		}
		if got := head(s, 100+n); !utf8.ValidString(got) || len(got) > 100+n || len(got) < 100+n-3 {
			t.Errorf("head(%d) = %d bytes, valid %v", 100+n, len(got), utf8.ValidString(got))
		}
	}
}

func TestUserText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"  fix the build  ": "fix the build",
		"<system-reminder>\nfile opened\n</system-reminder>\nfix the build":                                            "fix the build",
		"<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>": "",
		"<local-command-stdout>done</local-command-stdout>":                                                            "",
		"Caveat: The messages below were generated by the user while running local commands. DO NOT respond.":          "",
		"[Request interrupted by user]":                                         "",
		"<environment_context>\n  <cwd>/w</cwd>\n</environment_context>":        "",
		"# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>": "",
		"<user_instructions>\nbe brief\n</user_instructions>":                   "",
	} {
		if got := userText(in); got != want {
			t.Errorf("userText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCommandIntent(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"<command-message>fix-issue is running…</command-message>\n<command-name>/fix-issue</command-name>\n<command-args>123 in the parser</command-args>": "/fix-issue 123 in the parser",
		"<command-name>/review-pr</command-name>\n<command-message>review-pr</command-message>\n<command-args></command-args>":                              "/review-pr",
		"<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>":                                      "",
		"<command-name>/model</command-name>\n<command-args>opus</command-args>":                                                                            "",
		"fix the build": "",
	} {
		if got := commandIntent(in); got != want {
			t.Errorf("commandIntent(%q) = %q, want %q", in, got, want)
		}
	}
}
