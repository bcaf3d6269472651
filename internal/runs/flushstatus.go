package runs

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/runs/transcript"
)

// SessionStatus derives a run's status from its transcript, without an
// LLM. The last check the session ran decides: a command that runs tests
// or a build (IsCheck) with a known exit status. Exit 0 is success, or
// partial when a test seen failing was never seen passing again (the last
// check ran a subset); any other exit is failure. A session that ran no
// check is judged by the tests other commands reported: one still failing
// is failure, else a passing one is success. Otherwise: unknown.
func SessionStatus(s *transcript.Session) string {
	failing := slices.ContainsFunc(s.Tests, func(t transcript.Test) bool { return t.Status == TestFail })
	for i := len(s.Commands) - 1; i >= 0; i-- {
		c := s.Commands[i]
		if c.ExitCode < 0 || !IsCheck(c.Cmd) {
			continue
		}
		switch {
		case c.ExitCode != 0:
			return StatusFailure
		case failing:
			return StatusPartial
		}
		return StatusSuccess
	}
	switch {
	case failing:
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
	for _, part := range strings.FieldsFunc(cmd, func(r rune) bool { return r == '&' || r == '|' || r == ';' || r == '\n' }) {
		words := strings.Fields(part)
		all := words
		for len(words) > 0 && (strings.Contains(words[0], "=") || words[0] == "time" || words[0] == "env" || words[0] == "sudo") {
			words = words[1:]
		}
		if len(words) == 0 {
			continue
		}
		tool := filepath.Base(words[0])
		args := words[1:]
		switch {
		case slices.Contains(checkTools, tool),
			strings.HasPrefix(tool, "python") && len(args) >= 2 && args[0] == "-m" && (args[1] == "pytest" || args[1] == "unittest"),
			slices.Contains(buildTools, tool) && hasCheckVerb(args):
			return strings.Join(all, " ")
		}
	}
	return ""
}

// hasCheckVerb reports whether a check verb is among the first two
// arguments that are not flags.
func hasCheckVerb(args []string) bool {
	n := 0
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if slices.Contains(checkVerbs, a) {
			return true
		}
		if n++; n == 2 {
			return false
		}
	}
	return false
}
