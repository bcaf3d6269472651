// Package secrets finds credentials in text before memctl writes it into
// memory, with gitleaks' detector and its default rules. The detector
// costs tens of milliseconds to set up, so it is built on first use, and
// only write paths (propose, review, check) use it.
package secrets

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/zricethezav/gitleaks/v8/detect"
)

// Finding is a secret found in text: which rule matched and where. It
// never holds the secret itself.
type Finding struct {
	RuleID string
	Line   int // 1-based
	Column int // 1-based
}

func (f Finding) String() string {
	return fmt.Sprintf("%s at line %d, column %d", f.RuleID, f.Line, f.Column)
}

var (
	once     sync.Once
	detector *detect.Detector
	initErr  error
	mu       sync.Mutex // the detector is not safe for concurrent use
)

// Scan returns the secrets in text, in order of position.
func Scan(text string) ([]Finding, error) {
	once.Do(func() {
		detector, initErr = detect.NewDetectorDefaultConfig()
	})
	if initErr != nil {
		return nil, fmt.Errorf("set up the secret scanner: %w", initErr)
	}
	mu.Lock()
	found := detector.DetectString(text)
	mu.Unlock()
	out := make([]Finding, 0, len(found))
	for _, f := range found {
		out = append(out, Finding{RuleID: f.RuleID, Line: f.StartLine + 1, Column: max(f.StartColumn, 1)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Column < out[j].Column
	})
	return out, nil
}

// Describe lists findings for an error message, without the secrets.
func Describe(fs []Finding) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	return strings.Join(parts, "; ")
}
