package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/agents"
)

// TestAgentsBlockNamesOnlyCommandsThatExist: the AGENTS.md block is what
// agents are told to run; every `memctl …` in it must be a command of this
// binary, with flags it accepts (v1 told agents to run memctl prime before
// prime existed).
func TestAgentsBlockNamesOnlyCommandsThatExist(t *testing.T) {
	root := newRootCmd(&Env{Getenv: func(string) string { return "" }})
	spans := regexp.MustCompile("`(memctl [^`]+)`").FindAllStringSubmatch(agents.Block(), -1)
	if len(spans) < 5 {
		t.Fatalf("found %d commands in the block; the pattern no longer matches it", len(spans))
	}
	for _, m := range spans {
		words := strings.Fields(m[1])[1:]
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
