package app

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/index"
)

// RecallFilter is recall's filter as a front-end takes it, text as typed:
// memctl recall's flags and the MCP recall tool's parameters. Empty fields
// do not filter.
type RecallFilter struct {
	Kinds    []string
	Category string
	Status   string
	Label    string
	// Since and Until bound the documents' dates, both included: a date
	// (2026-01-02; Until takes in the whole day), an RFC 3339 time, or a
	// duration ago (72h, 14d, 2w).
	Since, Until string
	// Scope is team (what the repository shares), personal (the person's
	// own preferences), a name in [recall.scopes], or a path prefix
	// (./team for a directory called team).
	Scope string
}

// RecallFilter reads f for this workspace at the session's time: the
// index's filter, or a *UsageError naming the parameter as the front-end
// calls it, prefix and name ("--" and "since" for the CLI's --since, ""
// for the MCP tool's since).
func (s *Session) RecallFilter(f RecallFilter, prefix string) (index.Filter, error) {
	out := index.Filter{Kinds: f.Kinds, Category: f.Category, Status: f.Status, Label: f.Label}
	for _, k := range f.Kinds {
		if !slices.Contains(index.Kinds, k) {
			return out, &UsageError{Err: fmt.Errorf("%skind %q: want one of %s", prefix, k, strings.Join(index.Kinds, ", "))}
		}
	}
	now := s.Now()
	var err error
	if f.Since != "" {
		if out.Since, err = ParseWhen(prefix+"since", f.Since, now, true); err != nil {
			return out, err
		}
	}
	if f.Until != "" {
		if out.Until, err = ParseUntil(prefix+"until", f.Until, now); err != nil {
			return out, err
		}
	}
	if !out.Since.IsZero() && !out.Until.IsZero() && out.Since.After(out.Until) {
		return out, WithHint(&UsageError{Err: fmt.Errorf("%ssince %q is later than %suntil %q: no date is in both", prefix, f.Since, prefix, f.Until)},
			fmt.Sprintf("swap them: %ssince %s %suntil %s", prefix, f.Until, prefix, f.Since))
	}
	out.Origin, out.Scopes = s.recallScope(f.Scope)
	return out, nil
}

// recallScope is what --scope names: an origin (team, personal), the
// prefixes of a scope in [recall.scopes], or a path prefix relative to
// the repository root.
func (s *Session) recallScope(scope string) (origin string, prefixes []string) {
	switch scope {
	case "":
		return "", nil
	case config.ScopeTeam:
		return index.OriginTeam, nil
	case config.ScopePersonal:
		return index.OriginPersonal, nil
	}
	if p, ok := s.ws.Config.Recall.Scopes[scope]; ok {
		return "", p
	}
	return "", []string{strings.TrimPrefix(filepath.ToSlash(scope), "./")}
}
