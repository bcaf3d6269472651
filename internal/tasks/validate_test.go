package tasks

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/memctl/memctl/internal/tasks/taskstest"
)

func TestValidateJSONL(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"id":"bd-1","title":"ok","priority":2}`,
		`{"_type":"issue","id":"bd-2","title":"v1.0.3 shape"}`,
		`{"_type":"memory","key":"k","value":"v"}`,
		`{"id":"bd-3","title":"","status":"tombstone"}`,
		``,
		`{"id":"bd-4"}`,
		`{"id":"","title":"empty id"}`,
		`{"id":5,"title":"number id"}`,
		`["not","an","object"]`,
		`{"id":"bd-9","title":"x"`,
		`{"id":"bd-10","title":"   "}`, // bd accepts a blank title: only "" is empty
		`{"id":"bd-1","title":"again"}`,
		`{"id":"bd-11","title":"t","priority":5}`,
	}, "\n") + "\n"
	problems, n := ValidateJSONL([]byte(in))
	if n != 12 {
		t.Errorf("records = %d, want 12", n)
	}
	want := []string{
		`6 title missing or empty; every issue needs a title`,
		`7 id missing or empty; every issue needs an id`,
		`8 id is a number, want a string`,
		`9  not a JSON object; each line must be one issue object`,
		`10  invalid JSON at column 25: unexpected end of line`,
		`12 id duplicate id "bd-1" (also on line 1)`,
		`13 priority 5 is out of range; use 0 (critical) to 4 (backlog)`,
	}
	var got []string
	for _, p := range problems {
		got = append(got, fmt.Sprintf("%d %s %s", p.Line, p.Field, p.Message))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestValidateJSONLParallelMatchesOrder(t *testing.T) {
	t.Parallel()
	data := taskstest.JSONL(rand.New(rand.NewPCG(3, 4)), 9000)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for _, i := range []int{10, 4500, 8999} {
		lines[i] = `{"id":"broken"}`
	}
	problems, n := ValidateJSONL([]byte(strings.Join(lines, "\n") + "\n"))
	if n != 9000 || len(problems) != 3 {
		t.Fatalf("n = %d, problems = %+v", n, problems)
	}
	for i, line := range []int{11, 4501, 9000} {
		if problems[i].Line != line {
			t.Errorf("problem %d at line %d, want %d", i, problems[i].Line, line)
		}
	}
}

func BenchmarkValidateJSONL10k(b *testing.B) {
	data := taskstest.JSONL(rand.New(rand.NewPCG(1, 2)), 10_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if p, n := ValidateJSONL(data); len(p) != 0 || n != 10_000 {
			b.Fatal(p, n)
		}
	}
}
