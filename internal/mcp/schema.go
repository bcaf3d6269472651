package mcp

import (
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// toolEnums are the closed sets of values of some tools' fields, which
// the inferred schemas cannot know from a Go string.
var toolEnums = map[string]map[string][]any{
	"recall":     {"kind": {"fact", "task", "proposal", "run", "playbook", "personal"}},
	"task":       {"action": {"create", "update", "claim", "close", "comment"}},
	"propose":    {"action": {"add", "update", "remove"}},
	"record_run": {"status": {"success", "failure", "partial", "unknown"}},
}

// inputSchema is the input schema of tool for In: inferred from the Go
// type, with one type per property and the tool's enums. The inferred
// schema types an optional field (a pointer or a slice) as ["null", T],
// a union that some clients refuse (Gemini CLI answers such a tool list
// with HTTP 400); a field left out already means "not given".
func inputSchema[In any](tool string) (*jsonschema.Schema, error) {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, fmt.Errorf("tool %s: %w", tool, err)
	}
	singleTypes(s)
	for name, values := range toolEnums[tool] {
		p := s.Properties[name]
		if p == nil {
			return nil, fmt.Errorf("tool %s: no field %q for its enum", tool, name)
		}
		p.Enum = values
	}
	return s, nil
}

// singleTypes rewrites every ["null", T] type in s to T.
func singleTypes(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") {
		i := slices.Index(s.Types, "null")
		s.Type, s.Types = s.Types[1-i], nil
	}
	for _, p := range s.Properties {
		singleTypes(p)
	}
	singleTypes(s.Items)
	for _, x := range s.AnyOf {
		singleTypes(x)
	}
	for _, x := range s.PrefixItems {
		singleTypes(x)
	}
}
