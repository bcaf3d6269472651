package secrets

// Match is one finding in the form gitleaks' detector reports it, the
// secret included. It exists for the differential test against gitleaks
// (./gitleakscheck, a module of its own so that gitleaks stays out of
// memctl's go.mod), which must compare the secrets the two scanners
// extract, not only where they found them. Nothing in memctl shows a
// Match: report through Scan, whose Findings never hold the secret.
type Match struct {
	RuleID string
	Line   int    // 0-based line of the match's start, gitleaks' StartLine
	Offset int    // byte offset of the match in the text
	Secret string // the rule's secret group of the match, or all of it
	// Own is set for a finding of one of memctl's own rules (IsOwnRule),
	// which gitleaks does not have.
	Own bool
}

// Matches is Scan as gitleaks' DetectString reports it: secrets included,
// lines counted from 0, in the order the rules found them. Use Scan
// everywhere else.
func Matches(text string) ([]Match, error) {
	found, err := scan(text)
	if err != nil {
		return nil, err
	}
	out := make([]Match, len(found))
	for i, f := range found {
		out[i] = Match{RuleID: f.rule.id, Line: f.line, Offset: f.offset, Secret: f.secret, Own: IsOwnRule(f.rule.id)}
	}
	return out, nil
}
