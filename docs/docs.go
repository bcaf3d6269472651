// Package docs embeds memctl's user documentation in the binary, so that
// `memctl help <topic>` works in any repository, with no checkout of
// memctl's source: hints and flag help point there, never to a docs/ path
// that a user's repository does not have.
package docs

import (
	"embed"
	"regexp"
	"slices"
	"strings"
	"sync"
)

//go:embed agents.md beads.md ci.md commands.md config.md errors.md exit-codes.md facts.md json.md recall.md review.md runs.md secrets.md tasks.md
var files embed.FS

// Topic is one guide: its name for `memctl help NAME` and a one-line summary.
type Topic struct {
	Name    string
	Summary string
}

// Topics lists the guides in the order `memctl help` shows them.
var Topics = []Topic{
	{"agents", "for agents: prime, routing, JSON, hooks and MCP"},
	{"commands", "every command and flag"},
	{"json", "the --json shapes, a contract"},
	{"exit-codes", "what each exit code means"},
	{"errors", "every error memctl reports, its message and exit code"},
	{"config", ".ledger/config.toml, every key"},
	{"facts", "the facts file format and ids"},
	{"tasks", "the Beads-compatible task graph, merging and sync"},
	{"beads", "bd compatibility: commands and flags, bd mode, adopting a bd repository"},
	{"review", "proposals, write policies and review"},
	{"recall", "the index, recall and retrieval evaluation"},
	{"runs", "run records, error signatures, playbooks, flush and hooks"},
	{"ci", "memctl check in CI and pre-commit"},
	{"secrets", "the secret gate: refuse or redact, allow-list, check --secrets"},
}

// Text returns the guide called name, with links between the guides turned
// into the help commands that show them, for reading in a terminal.
func Text(name string) (string, bool) {
	if !isTopic(name) {
		return "", false
	}
	b, err := files.ReadFile(name + ".md")
	if err != nil {
		return "", false
	}
	return terminalLinks(string(b)), true
}

var linkRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)
})

// terminalLinks rewrites Markdown links: [text](json.md#init) becomes
// "text (memctl help json)", [text](https://…) becomes "text <https://…>".
// Other links (to files in memctl's own source) keep their text only.
func terminalLinks(s string) string {
	return linkRE().ReplaceAllStringFunc(s, func(m string) string {
		sub := linkRE().FindStringSubmatch(m)
		text, target := sub[1], sub[2]
		switch {
		case strings.HasPrefix(target, "http://"), strings.HasPrefix(target, "https://"):
			return text + " <" + target + ">"
		case strings.HasPrefix(target, "#"):
			return text
		}
		file, _, _ := strings.Cut(target, "#")
		name := strings.TrimSuffix(file, ".md")
		if isTopic(name) && strings.HasSuffix(file, ".md") && !strings.Contains(file, "/") {
			if text == "`"+name+".md`" || text == name+".md" {
				return "memctl help " + name
			}
			return text + " (memctl help " + name + ")"
		}
		return text
	})
}

func isTopic(name string) bool {
	return slices.ContainsFunc(Topics, func(t Topic) bool { return t.Name == name })
}
