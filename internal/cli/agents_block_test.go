package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/memctl/memctl/docs"
	"github.com/memctl/memctl/internal/agents"
)

// TestAgentsBlockNamesOnlyCommandsThatExist: the AGENTS.md block is what
// agents are told to run; every `memctl …` in it must be a command of this
// binary, with flags it accepts (v1 told agents to run memctl prime before
// prime existed).
func TestAgentsBlockNamesOnlyCommandsThatExist(t *testing.T) {
	assertCommandsExist(t, agents.Block())
}

// TestAgentGuideNamesOnlyCommandsThatExist: the same for the agent guide
// (memctl help agents), its inline commands and its console examples.
func TestAgentGuideNamesOnlyCommandsThatExist(t *testing.T) {
	text, ok := docs.Text("agents")
	if !ok {
		t.Fatal("no agents guide")
	}
	// Console lines ($ memctl …, continued with a backslash) read as spans.
	text = strings.ReplaceAll(text, "\\\n   ", "")
	text = regexp.MustCompile(`(?m)^\$ (memctl [^|\n]+)`).ReplaceAllString(text, "`$1`")
	assertCommandsExist(t, text)
}

func assertCommandsExist(t *testing.T, text string) {
	t.Helper()
	root := newRootCmd(&Env{Getenv: func(string) string { return "" }})
	spans := regexp.MustCompile("`(memctl [^`]+)`").FindAllStringSubmatch(text, -1)
	if len(spans) < 5 {
		t.Fatalf("found %d commands; the pattern no longer matches the text", len(spans))
	}
	for _, m := range spans {
		words := strings.Fields(m[1])[1:]
		if len(words) == 2 && words[0] == "help" {
			if _, ok := docs.Text(words[1]); !ok {
				t.Errorf("%q: no such help topic", m[1])
			}
			continue
		}
		var args []string
		var flags []string
		for _, w := range words {
			if strings.HasPrefix(w, "--") {
				flags = append(flags, strings.TrimPrefix(w, "--"))
			} else if len(flags) == 0 {
				args = append(args, w)
			}
		}
		cmd, _, err := root.Find(args)
		if err != nil || cmd == root {
			t.Errorf("%q: no such command", m[1])
			continue
		}
		for _, f := range flags {
			if cmd.Flags().Lookup(f) == nil {
				t.Errorf("%q: %s has no flag --%s", m[1], cmd.CommandPath(), f)
			}
		}
	}
}
