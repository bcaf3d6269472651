package runs

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/runs/transcript"
)

// SessionStatus derives a run's status from its transcript, without an
// LLM. The last check the session ran decides: a command that runs tests
// or a build (IsCheck) with a known exit status. Any exit but 0 is
// failure. Exit 0 is success, or partial when a check of another kind
// (another runner or verb: pytest beside go test, go build beside go test)
// failed the last time it ran; the same runner passing again, on the
// same or other arguments, is taken to have fixed its failure. A
// session that ran no check is judged by the tests other commands
// reported: one failing is failure, else a passing one is success.
// Otherwise: unknown.
func SessionStatus(s *transcript.Session) string {
	last := map[string]int{} // kind of check → exit code of its last run
	var order []string       // kinds of check, last run last
	for _, c := range s.Commands {
		_, kind := check(c.Cmd)
		if c.ExitCode < 0 || kind == "" {
			continue
		}
		last[kind] = c.ExitCode
		order = slices.DeleteFunc(order, func(k string) bool { return k == kind })
		order = append(order, kind)
	}
	if len(order) > 0 {
		if last[order[len(order)-1]] != 0 {
			return StatusFailure
		}
		for _, p := range order {
			if last[p] != 0 {
				return StatusPartial
			}
		}
		return StatusSuccess
	}
	switch {
	case slices.ContainsFunc(s.Tests, func(t transcript.Test) bool { return t.Status == TestFail }):
		return StatusFailure
	case slices.ContainsFunc(s.Tests, func(t transcript.Test) bool { return t.Status == TestPass }):
		return StatusSuccess
	}
	return StatusUnknown
}

// checkTools run tests or checks whatever their arguments.
var checkTools = []string{"pytest", "py.test", "jest", "vitest", "mocha", "tox", "nox", "rspec", "ctest", "phpunit"}

// checkVerbs are the subcommands that make a build tool's run a check:
// go test, cargo build, npm run test, make check, mvn verify, ….
var checkVerbs = []string{"test", "tests", "build", "vet", "check", "lint", "verify"}

// buildTools take a check verb.
var buildTools = []string{"go", "cargo", "npm", "pnpm", "yarn", "bun", "deno", "make", "just", "mvn", "gradle", "gradlew", "dotnet", "mix", "swift", "zig"}

// IsCheck reports whether a shell command runs tests or a build: in any
// part of a command list (&&, ||, ;, |), a test runner (pytest, jest, …),
// python -m pytest or unittest, or a build tool with a check verb among
// its first two arguments that are not flags (go test, npm run test,
// make check).
func IsCheck(cmd string) bool { return checkPart(cmd) != "" }

// checkPart is the first part of a command list that is a check (IsCheck),
// its words joined by single spaces; "" when there is none.
func checkPart(cmd string) string {
	part, _ := check(cmd)
	return part
}

// check returns checkPart and the kind of check it is: the runner and, for
// a build tool, the verb (pytest, go test, npm test, make check), so that
// go test ./... passing after go test ./x failed is the same check passing.
func check(cmd string) (part, kind string) {
	for _, part := range strings.FieldsFunc(cmd, func(r rune) bool { return r == '&' || r == '|' || r == ';' || r == '\n' }) {
		words := strings.Fields(part)
		for len(words) > 0 && (strings.Contains(words[0], "=") || words[0] == "time" || words[0] == "env" || words[0] == "sudo") {
			words = words[1:]
		}
		if len(words) == 0 {
			continue
		}
		all := words
		tool := filepath.Base(words[0])
		args := words[1:]
		switch {
		case slices.Contains(checkTools, tool):
			return strings.Join(all, " "), tool
		case strings.HasPrefix(tool, "python") && len(args) >= 2 && args[0] == "-m" && (args[1] == "pytest" || args[1] == "unittest"):
			return strings.Join(all, " "), args[1]
		case slices.Contains(buildTools, tool):
			if verb := checkVerb(args); verb != "" {
				return strings.Join(all, " "), tool + " " + verb
			}
		}
	}
	return "", ""
}

// checkVerb is the check verb among the first two arguments that are not
// flags, or "".
func checkVerb(args []string) string {
	n := 0
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if slices.Contains(checkVerbs, a) {
			return a
		}
		if n++; n == 2 {
			return ""
		}
	}
	return ""
}
