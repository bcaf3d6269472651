package transcript

import (
	"strings"
	"unicode/utf8"
)

// clean removes terminal escape sequences (colours, hyperlinks) that tool
// output carries into transcripts, and carriage returns before newlines.
func clean(s string) string {
	if !strings.ContainsAny(s, "\x1b\r") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\r' && (i+1 == len(s) || s[i+1] == '\n' || s[i+1] == '\r'):
		case c == 0x1b && i+1 < len(s) && s[i+1] == '[': // CSI: parameters, then a final byte
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
		case c == 0x1b && i+1 < len(s) && s[i+1] == ']': // OSC: ends with BEL or ESC \
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j
		case c == 0x1b:
			i++ // a two-byte escape
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// head returns at most n bytes of s from its start, cut on a character
// boundary.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// tail returns at most n bytes of s from its end, cut on a character
// boundary.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// errorExcerpt cuts an error text to at most 2 KiB: the whole text when it
// fits, else from its first line that looks like an error (what a signature
// needs is there), else its end.
func errorExcerpt(s string) string {
	s = strings.TrimSpace(clean(s))
	if len(s) <= maxExcerpt {
		return s
	}
	off := 0
	for line := range strings.Lines(s) {
		if looksLikeError(line) {
			return strings.TrimSpace(head(s[off:], maxExcerpt))
		}
		off += len(line)
	}
	return strings.TrimSpace(tail(s, maxExcerpt))
}

func looksLikeError(line string) bool {
	l := strings.ToLower(line)
	for _, w := range []string{"error", "fail", "panic", "traceback", "fatal", "exception", "✕"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// testResults calls add for every test result line of a test runner's
// output it knows: go test (--- PASS/FAIL/SKIP: Name), pytest (FAILED
// path::test, path::test PASSED), jest (✓, ✕, ○ skipped) and cargo test
// (test name ... ok/FAILED/ignored).
func testResults(out string, add func(name, status string)) {
	js := (strings.Contains(out, "Tests") || strings.Contains(out, "PASS ") || strings.Contains(out, "FAIL ")) && jsReport(out)
	if !js && !strings.Contains(out, "--- ") && !strings.Contains(out, "::") && !strings.Contains(out, " ... ") {
		return
	}
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if name, status, ok := testLine(line, js); ok {
			add(name, status)
		}
	}
}

// jsReport reports whether out is a jest or vitest report, where ✓ and ✕
// lines are tests (memctl and bd print ✓ before what they did).
func jsReport(out string) bool {
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "Tests:") || strings.HasPrefix(line, "Tests ") || strings.HasPrefix(line, "Test Files ") ||
			strings.HasPrefix(line, "PASS ") || strings.HasPrefix(line, "FAIL ") && !strings.Contains(line, "\t") {
			return true
		}
	}
	return false
}

func testLine(line string, js bool) (name, status string, ok bool) {
	// go test
	for _, m := range [...]struct{ prefix, status string }{{"--- PASS: ", "pass"}, {"--- FAIL: ", "fail"}, {"--- SKIP: ", "skip"}} {
		if rest, found := strings.CutPrefix(line, m.prefix); found {
			name, _, _ = strings.Cut(rest, " ")
			return name, m.status, name != ""
		}
	}
	// pytest's summary: FAILED path::test - message, ERROR path::test - message
	for _, prefix := range [...]string{"FAILED ", "ERROR "} {
		if rest, found := strings.CutPrefix(line, prefix); found && strings.Contains(rest, "::") {
			name, _, _ = strings.Cut(rest, " ")
			return name, "fail", true
		}
	}
	// pytest -v: path::test PASSED [ 50%]
	if f := strings.Fields(line); len(f) >= 2 && strings.Contains(f[0], "::") {
		switch f[1] {
		case "PASSED", "XPASS":
			return f[0], "pass", true
		case "FAILED", "ERROR":
			return f[0], "fail", true
		case "SKIPPED", "XFAIL":
			return f[0], "skip", true
		}
	}
	// cargo test: test path::name ... ok
	if rest, found := strings.CutPrefix(line, "test "); found {
		if n, res, found := strings.Cut(rest, " ... "); found && !strings.Contains(n, " ") {
			res, _, _ = strings.Cut(res, ",")
			switch strings.TrimSpace(res) {
			case "ok":
				return n, "pass", true
			case "FAILED":
				return n, "fail", true
			case "ignored":
				return n, "skip", true
			}
		}
	}
	// jest: ✓ name (3 ms), ✕ name (5 ms), ○ skipped name
	if !js {
		return "", "", false
	}
	for _, m := range [...]struct{ prefix, status string }{
		{"✓ ", "pass"}, {"√ ", "pass"}, {"✕ ", "fail"}, {"× ", "fail"}, {"○ skipped ", "skip"}, {"○ ", "skip"},
	} {
		if rest, found := strings.CutPrefix(line, m.prefix); found {
			if i := strings.LastIndex(rest, " ("); i > 0 && strings.HasSuffix(rest, "ms)") {
				rest = rest[:i]
			}
			if rest = strings.TrimSpace(rest); rest != "" {
				return rest, m.status, true
			}
		}
	}
	return "", "", false
}

// taskOps finds the tasks a shell command claims or closes with memctl or
// bd: update ID --claim, update ID --status in_progress (or closed), close
// ID…. Each command of a list (&&, ||, ;, |, newlines) counts.
func taskOps(cmd string) (claims, closes []string) {
	for _, w := range shellSegments(cmd) {
		// Skip variable assignments before the program: FOO=bar memctl …
		for len(w) > 0 && strings.Contains(w[0], "=") && !strings.HasPrefix(w[0], "-") {
			w = w[1:]
		}
		if len(w) == 0 {
			continue
		}
		if prog := shellName(w[0]); prog != "memctl" && prog != "bd" {
			continue
		}
		sub, ids, flags := taskArgs(w[1:])
		switch sub {
		case "close":
			closes = append(closes, ids...)
		case "update":
			switch {
			case flags["--claim"] == "true", flags["--status"] == "in_progress":
				claims = append(claims, ids...)
			case flags["--status"] == "closed":
				closes = append(closes, ids...)
			}
		}
	}
	return claims, closes
}

// valueFlag reports whether f is one of the flags of memctl's and bd's update and close (and the
// global ones) that take a value; the value is not a task id.
func valueFlag(f string) bool {
	switch f {
	case "-s", "--status", "-p", "--priority", "--title", "-d", "--description", "--notes", "--append-notes",
		"--design", "-a", "--assignee", "--add-label", "--remove-label", "--defer", "-t", "--type",
		"--acceptance", "--parent", "--due", "--estimate", "--external-ref", "-r", "--reason", "--session",
		"--db", "--actor", "-C", "--dir":
		return true
	}
	return false
}

// taskArgs splits the words after the program into the subcommand, the
// arguments that look like task ids, and the flags (value "true" for a
// flag without one). Long and short flags are named as --status and -s.
func taskArgs(words []string) (sub string, ids []string, flags map[string]string) {
	flags = map[string]string{}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, "-") && len(w) > 1 {
			name, val, hasVal := strings.Cut(w, "=")
			switch {
			case hasVal:
			case valueFlag(name) && i+1 < len(words):
				i++
				val = words[i]
			default:
				val = "true"
			}
			if name == "-s" {
				name = "--status"
			}
			flags[name] = val
			continue
		}
		if sub == "" {
			sub = w
			continue
		}
		if isTaskID(w) {
			ids = append(ids, w)
		}
	}
	return sub, ids, flags
}

// isTaskID reports whether w has the shape of a Beads id: prefix-hash,
// with optional .N children (app-3f2, bd-a1b2.1).
func isTaskID(w string) bool {
	i := strings.IndexByte(w, '-')
	if i <= 0 || i == len(w)-1 || len(w) > 64 {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_') {
			return false
		}
	}
	return true
}

// shellSegments splits a shell command into its simple commands' words,
// with quotes and backslashes as a POSIX shell reads them. It is not a
// shell parser: substitutions stay words, redirections stay words.
func shellSegments(cmd string) [][]string {
	var segs [][]string
	var words []string
	var w strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			words = append(words, w.String())
			w.Reset()
			inWord = false
		}
	}
	endSeg := func() {
		endWord()
		if len(words) > 0 {
			segs = append(segs, words)
			words = nil
		}
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == '\'':
			inWord = true
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				j = len(cmd) - i - 1
			}
			w.WriteString(cmd[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(cmd) && cmd[i] != '"'; i++ {
				if cmd[i] == '\\' && i+1 < len(cmd) && strings.IndexByte("\"\\$`", cmd[i+1]) >= 0 {
					i++
				}
				w.WriteByte(cmd[i])
			}
		case c == '\\' && i+1 < len(cmd):
			inWord = true
			i++
			if cmd[i] != '\n' {
				w.WriteByte(cmd[i])
			}
		case c == ' ' || c == '\t':
			endWord()
		case c == '\n' || c == ';' || c == '&' || c == '|':
			endSeg()
		default:
			inWord = true
			w.WriteByte(c)
		}
	}
	endSeg()
	return segs
}

// shellJoin writes an argv as one shell line, quoting the words that need it.
func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@%+=:,./-", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// userText is what a person typed in a user message: system reminders and
// hook output are removed, and the messages runtimes inject (slash-command
// wrappers, caveats, interrupts, Codex's environment context and AGENTS.md)
// are not typed at all ("").
func userText(s string) string {
	for _, tag := range []string{"system-reminder", "user-prompt-submit-hook"} {
		s = removeElements(s, tag)
	}
	s = strings.TrimSpace(s)
	for _, p := range []string{
		"<command-name>", "<command-message>", "<command-args>", "<local-command-stdout>", "<local-command-stderr>",
		"Caveat: The messages below were generated by the user while running local commands",
		"[Request interrupted by user",
		"<environment_context>", "<user_instructions>", "# AGENTS.md instructions for ", "<INSTRUCTIONS>",
		"<permissions instructions>", "<user_shell_command>", "<turn_aborted>",
		"<task-notification>", "<bash-input>", "<bash-stdout>", "<bash-stderr>", "<cross-session-message",
	} {
		if strings.HasPrefix(s, p) {
			return ""
		}
	}
	return s
}

// commandIntent is the request a slash command carries: "/fix-issue 123"
// for a custom command, "" for Claude Code's own commands (/clear,
// /compact, /model, …), which are not requests, and for other text.
func commandIntent(s string) string {
	name := element(s, "command-name")
	if name == "" {
		return ""
	}
	switch strings.TrimPrefix(name, "/") {
	case "clear", "compact", "model", "exit", "quit", "resume", "continue", "config", "login", "logout", "cost",
		"help", "memory", "permissions", "status", "vim", "ide", "mcp", "agents", "hooks", "doctor", "context",
		"rewind", "export", "add-dir", "bashes", "statusline", "usage", "theme", "terminal-setup", "privacy-settings",
		"release-notes", "upgrade", "feedback", "bug", "output-style", "todos", "plugin", "sandbox", "fast":
		return ""
	}
	if args := strings.TrimSpace(element(s, "command-args")); args != "" {
		return name + " " + args
	}
	return name
}

// element returns the trimmed text of the first <tag>…</tag> in s.
func element(s, tag string) string {
	_, rest, ok := strings.Cut(s, "<"+tag+">")
	if !ok {
		return ""
	}
	text, _, ok := strings.Cut(rest, "</"+tag+">")
	if !ok {
		return ""
	}
	return strings.TrimSpace(text)
}

// removeElements removes every <tag>…</tag> from s.
func removeElements(s, tag string) string {
	open, end := "<"+tag+">", "</"+tag+">"
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], end)
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+len(end):]
	}
}
