package gitx

import (
	"slices"
	"testing"
)

func TestParseStatus(t *testing.T) {
	t.Parallel()
	out := " M internal/x.go\x00M  staged.go\x00A  new.go\x00 D gone.go\x00R  to.go\x00from.go\x00?? dir/untracked file.py\x00MM internal/x.go\x00"
	want := []string{"dir/untracked file.py", "from.go", "gone.go", "internal/x.go", "new.go", "staged.go", "to.go"}
	if got := parseStatus(out); !slices.Equal(got, want) {
		t.Errorf("parseStatus = %q, want %q", got, want)
	}
	if got := parseStatus(""); len(got) != 0 {
		t.Errorf("clean tree: %q", got)
	}
}
