package config

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/memctl/memctl/internal/fsx"
)

// BeadsConfigFile is bd's configuration; bd 0.49.6 writes the id prefix
// there as issue-prefix.
const BeadsConfigFile = ".beads/config.yaml"

// The sources of a task-id prefix, in the order ProjectPrefix tries them.
const (
	PrefixFromBeadsConfig = BeadsConfigFile
	PrefixFromIssues      = IssuesFile
	PrefixFromDirectory   = "the directory name"
)

// ProjectPrefix is the task-id prefix for a repository that has not set
// one in .ledger/config.toml: bd's own (issue-prefix in
// .beads/config.yaml), else the prefix most of the existing issues carry,
// else the directory's name (DefaultPrefix). source names which one it
// came from, for the user. A repository bd already uses so keeps one
// prefix: new memctl issues look like bd's.
func ProjectPrefix(root string) (prefix, source string) {
	if p := beadsConfigPrefix(filepath.Join(root, filepath.FromSlash(BeadsConfigFile))); p != "" {
		return p, PrefixFromBeadsConfig
	}
	if p := issuesPrefix(filepath.Join(root, filepath.FromSlash(IssuesFile))); p != "" {
		return p, PrefixFromIssues
	}
	return DefaultPrefix(root), PrefixFromDirectory
}

// beadsConfigPrefix reads the top-level issue-prefix key of bd's YAML
// config (also spelled issue_prefix), or "" when it is absent, empty,
// commented out or not a valid prefix. bd's config is flat YAML; a full
// YAML parser is not needed for one scalar.
func beadsConfigPrefix(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		key, val, ok := strings.Cut(line, ":")
		if !ok || (key != "issue-prefix" && key != "issue_prefix") {
			continue // indented keys belong to a nested map
		}
		val = strings.TrimSpace(val)
		if len(val) > 0 && (val[0] == '"' || val[0] == '\'') {
			if end := strings.IndexByte(val[1:], val[0]); end >= 0 {
				val = val[1 : 1+end]
			}
		} else if i := strings.Index(val, " #"); i >= 0 {
			val = strings.TrimSpace(val[:i])
		}
		if ValidPrefix(val) {
			return val
		}
		return ""
	}
	return ""
}

// issuesPrefix is the prefix most issues in the file carry ("" for none):
// an id is prefix-hash or prefix-hash.N, and the prefix may hold '-', so
// it is what precedes the last '-' of the id without its child numbers.
// Ties go to the alphabetically first.
func issuesPrefix(path string) string {
	data, err := fsx.ReadMapped(path)
	if err != nil {
		return ""
	}
	counts := map[string]int{}
	for line := range bytes.SplitSeq(data, []byte{'\n'}) {
		if p := IDPrefix(lineID(line)); p != "" {
			counts[p]++
		}
	}
	best, n := "", 0
	for p, c := range counts {
		if c > n || (c == n && p < best) {
			best, n = p, c
		}
	}
	return best
}

// lineID finds the issue id in a JSONL line without decoding it: the
// first "id" key (bd writes it first, after "_type"; edges and comments
// come later in the line and their keys are issue_id or follow it).
func lineID(line []byte) string {
	i := bytes.Index(line, []byte(`"id":"`))
	if i < 0 {
		return ""
	}
	rest := line[i+len(`"id":"`):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return ""
	}
	return string(rest[:end])
}

// IDPrefix is the prefix of a bd id, or "" when id has none that
// ValidPrefix accepts.
func IDPrefix(id string) string {
	base, _, _ := strings.Cut(id, ".")
	i := strings.LastIndexByte(base, '-')
	if i <= 0 || i == len(base)-1 {
		return ""
	}
	if p := base[:i]; ValidPrefix(p) {
		return p
	}
	return ""
}
