package tasks

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// eras is one line of every shape bd has exported (BEADS.md §1.1), plus
// lines memctl must keep without understanding them.
var eras = strings.Join([]string{
	`{"id":"bd-a1","title":"Bare v0.49 line","description":"x","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-02T03:04:05.561102579Z","updated_at":"2026-01-02T03:04:05Z","labels":["cli"],"comments":[{"id":1,"issue_id":"bd-a1","author":"t","text":"int id","created_at":"2026-01-02T03:04:05Z"}]}`,
	`{"id":"bd-a2","title":"Dolt era with counts","status":"open","priority":0,"issue_type":"bug","created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z","dependency_count":0,"dependent_count":0,"comment_count":1,"comments":[{"id":"0f8e3c2a-1b2c-4d5e-8f90-123456789abc","issue_id":"bd-a2","author":"t","text":"uuid id","created_at":"2026-01-02T03:04:05Z"}]}`,
	`{"_type":"issue","id":"bd-a3","title":"v1.0.3+ line","status":"closed","priority":1,"issue_type":"feature","created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z","closed_at":"2026-01-03T00:00:00Z","close_reason":"Done","future_field":{"nested":[1,2]},"hook_bead":"x"}`,
	`{"id":"bd-a4","title":"gone","status":"tombstone","priority":2,"issue_type":"task","created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z","deleted_at":"2026-01-04T00:00:00Z"}`,
	`{"id":"bd-a5","title":"Depends on a3","status":"open","priority":3,"issue_type":"task","created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z","dependencies":[{"issue_id":"bd-a5","depends_on_id":"bd-a3","type":"blocks","created_at":"2026-01-02T03:04:05Z","created_by":"t","metadata":"{}"}],"started_at":"2026-01-02T04:00:00Z"}`,
	// Lines that are not issues go after the issues, in their order.
	`{"_type":"memory","key":"deploy","value":"use the blue pool"}`,
}, "\n") + "\n"

func TestRoundTripKeepsEveryOtherLine(t *testing.T) {
	t.Parallel()
	s, err := Parse([]byte(eras))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(s.Issues()); got != 4 {
		t.Fatalf("live issues = %d, want 4 (tombstone and memory are not issues)", got)
	}
	if got := string(s.Bytes()); got != eras {
		t.Fatalf("unchanged store did not round-trip byte for byte:\n%s", got)
	}
	st := "in_progress"
	if _, err := s.Update("bd-a5", Changes{Status: &st}, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	before := strings.Split(strings.TrimSuffix(eras, "\n"), "\n")
	after := strings.Split(strings.TrimSuffix(string(s.Bytes()), "\n"), "\n")
	if len(after) != len(before) {
		t.Fatalf("line count %d → %d", len(before), len(after))
	}
	changed := 0
	for i := range before {
		if before[i] == after[i] {
			continue
		}
		changed++
		var a, b map[string]any
		_ = json.Unmarshal([]byte(before[i]), &a)
		_ = json.Unmarshal([]byte(after[i]), &b)
		if a["id"] != "bd-a5" {
			t.Errorf("line %d changed but is not the updated issue:\n%s\n%s", i+1, before[i], after[i])
			continue
		}
		if b["status"] != "in_progress" || b["updated_at"] != "2026-02-01T00:00:00Z" {
			t.Errorf("update not applied: %s", after[i])
		}
		delete(a, "status")
		delete(a, "updated_at")
		delete(b, "status")
		delete(b, "updated_at")
		if !reflect.DeepEqual(a, b) {
			t.Errorf("other fields of the updated issue changed:\n%v\n%v", a, b)
		}
		if !strings.HasPrefix(after[i], `{"id":"bd-a5","title":`) || strings.Index(after[i], `"started_at"`) > strings.Index(after[i], `"dependencies"`) {
			t.Errorf("rewritten line is not in bd's field order: %s", after[i])
		}
	}
	if changed != 1 {
		t.Errorf("%d lines changed, want 1", changed)
	}
}

func TestParseRejectsBadLinesNamingLineAndField(t *testing.T) {
	t.Parallel()
	good := `{"id":"x-1","title":"ok","status":"open","priority":1,"created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z"}`
	for _, c := range []struct {
		line, field, msg string
	}{
		{`{"id":"x-2","title":"t"`, "", "invalid JSON"},
		{`{"id":"x-2","title":""}`, "title", "empty"},
		{`{"id":"x-2","title":"` + strings.Repeat("a", 501) + `"}`, "title", "at most 500"},
		{`{"id":"x-2","title":"t","priority":7}`, "priority", "out of range"},
		{`{"id":"x-2","title":"t","priority":"high"}`, "priority", "want an integer"},
		{`{"id":"x-2","title":"t","status":"closed"}`, "closed_at", "missing on a closed issue"},
		{`{"id":"x-2","title":"t","closed_at":"2026-01-02T03:04:05Z"}`, "closed_at", "status \"open\""},
		{`{"id":"x-2","title":"t","created_at":"yesterday"}`, "created_at", "RFC 3339"},
		{`{"id":"x-1","title":"again"}`, "id", "duplicate id \"x-1\" (also on line 1)"},
		{`{"id":"x-2","title":"t","dependencies":[{"issue_id":"x-2"}]}`, "dependencies", "lacks depends_on_id"},
		{`["not an object"]`, "", "not a JSON object"},
	} {
		_, err := Parse([]byte(good + "\n" + c.line + "\n"))
		var le *LineError
		if !errors.As(err, &le) || le.Line != 2 || le.Field != c.field || !strings.Contains(le.Message, c.msg) {
			t.Errorf("Parse(%.60q) = %v; want line 2, field %q, message with %q", c.line, err, c.field, c.msg)
		}
	}
}

func TestCRLFAndBlankLines(t *testing.T) {
	t.Parallel()
	in := "{\"id\":\"b-2\",\"title\":\"two\"}\r\n\r\n{\"id\":\"b-1\",\"title\":\"one\"}\r\n"
	s, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(s.Bytes()), "{\"id\":\"b-2\",\"title\":\"two\"}\n{\"id\":\"b-1\",\"title\":\"one\"}\n"; got != want {
		t.Errorf("Bytes() = %q, want the lines in their order with LF endings %q", got, want)
	}
}

func TestHashIDMatchesBeads(t *testing.T) {
	t.Parallel()
	created := time.Unix(0, 1763805600000000000)
	// Computed independently with Python from bd's recipe (BEADS.md §4).
	for l, want := range map[int]string{3: "bd-zgi", 4: "bd-05dd", 8: "bd-9u6nn394"} {
		if got := hashID("bd", "Write parser", "parse facts", "alice", created, 0, l); got != want {
			t.Errorf("hashID length %d = %q, want %q", l, got, want)
		}
	}
	for n, want := range map[int]int{0: 3, 163: 3, 164: 4, 983: 4, 984: 5, 5898: 5, 5899: 6, 35389: 6, 35390: 7} {
		if got := hashLen(n); got != want {
			t.Errorf("hashLen(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestCreateIDsAndChildren(t *testing.T) {
	t.Parallel()
	s, _ := Parse(nil)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	who := Actor{Name: "ann"}
	a, err := s.Create(NewIssue{Title: "same", Type: "task", Priority: 2}, "mc", who, now)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Create(NewIssue{Title: "same", Type: "task", Priority: 2}, "mc", who, now)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID == b.ID || len(a.ID) != len("mc-")+3 {
		t.Errorf("ids %q and %q: want two distinct 3-character hash ids (nonce retry)", a.ID, b.ID)
	}
	c1, _ := s.Create(NewIssue{Title: "c1", Type: "task", Parent: a.ID}, "mc", who, now)
	c2, _ := s.Create(NewIssue{Title: "c2", Type: "task", Parent: a.ID}, "mc", who, now)
	if c1.ID != a.ID+".1" || c2.ID != a.ID+".2" {
		t.Errorf("children = %q, %q", c1.ID, c2.ID)
	}
	g1, _ := s.Create(NewIssue{Title: "g", Type: "task", Parent: c1.ID}, "mc", who, now)
	g2, _ := s.Create(NewIssue{Title: "g", Type: "task", Parent: g1.ID}, "mc", who, now)
	if _, err := s.Create(NewIssue{Title: "too deep", Type: "task", Parent: g2.ID}, "mc", who, now); err == nil {
		t.Errorf("a child of %s (3 levels) was allowed", g2.ID)
	}
	if len(c1.Deps) != 1 || c1.Deps[0].Type != DepParentChild || c1.Deps[0].DependsOnID != a.ID {
		t.Errorf("child deps = %+v", c1.Deps)
	}
	for _, bad := range []NewIssue{{Title: "", Type: "task"}, {Title: "x", Type: "nope"}, {Title: "x", Type: "task", Priority: 5}, {Title: "x", Type: "task", Parent: "mc-zzz"}} {
		if _, err := s.Create(bad, "mc", who, now); err == nil {
			t.Errorf("Create(%+v) accepted bad input", bad)
		}
	}
	if !bytes.HasSuffix(s.Bytes(), []byte("\n")) {
		t.Error("no trailing newline")
	}
}

func TestClaim(t *testing.T) {
	t.Parallel()
	s, _ := Parse(nil)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	iss, _ := s.Create(NewIssue{Title: "x", Type: "task"}, "mc", Actor{Name: "ann"}, now)
	if _, err := s.Claim(iss.ID, Actor{Name: "ann"}, now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim(iss.ID, Actor{Name: "ann"}, now); err != nil {
		t.Errorf("re-claim by the holder failed: %v", err)
	}
	var ce *ClaimError
	if _, err := s.Claim(iss.ID, Actor{Name: "bob"}, now); !errors.As(err, &ce) || ce.Holder != "ann" || !errors.Is(err, ErrClaimed) {
		t.Errorf("claim by another = %v, want ClaimError naming ann", err)
	}
	got, _ := s.Get(iss.ID)
	if got.Status != StatusInProgress || got.Assignee != "ann" || got.StartedAt.IsZero() {
		t.Errorf("after claim: %+v", got)
	}
}

func TestAddDepRefusesCycles(t *testing.T) {
	t.Parallel()
	s, _ := Parse(nil)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	who := Actor{Name: "ann"}
	a, _ := s.Create(NewIssue{Title: "a", Type: "task"}, "mc", who, now)
	b, _ := s.Create(NewIssue{Title: "b", Type: "task", Deps: []DepSpec{{Type: DepBlocks, ID: a.ID}}}, "mc", who, now)
	c, _ := s.Create(NewIssue{Title: "c", Type: "task", Deps: []DepSpec{{Type: DepBlocks, ID: b.ID}}}, "mc", who, now)
	var ce *CycleError
	err := s.AddDep(a.ID, c.ID, DepBlocks, who, now)
	if !errors.As(err, &ce) || strings.Join(ce.Path, " ") != strings.Join([]string{a.ID, c.ID, b.ID, a.ID}, " ") {
		t.Fatalf("AddDep = %v, want a cycle a→c→b→a", err)
	}
	if err := s.AddDep(a.ID, c.ID, DepRelated, who, now); err != nil {
		t.Errorf("a non-blocking edge was refused: %v", err)
	}
	if err := s.AddDep(a.ID, c.ID, DepBlocks, who, now); err == nil {
		t.Error("a second edge type for the same pair was accepted")
	}
	if err := s.RemoveDep(a.ID, c.ID, now); err != nil {
		t.Fatal(err)
	}
	if iss, _ := s.Get(a.ID); len(iss.Deps) != 0 {
		t.Errorf("deps after remove = %+v", iss.Deps)
	}
}

func TestCommentIDsFollowTheFile(t *testing.T) {
	t.Parallel()
	issue := func(id, comments string) string {
		return `{"id":"` + id + `","title":"t","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z"` + comments + "}\n"
	}
	cmt := func(id, issue string) string {
		return `{"id":` + id + `,"issue_id":"` + issue + `","author":"t","text":"x","created_at":"2026-01-02T03:04:05Z"}`
	}
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, file, on string
		want           string // the new comment's id in the file: a number, or "uuid"
	}{
		{"bd 0.x integers, global: next after the largest in the file",
			issue("bd-a", `,"comments":[`+cmt("3", "bd-a")+`,`+cmt("9", "bd-a")+`]`) + issue("bd-b", `,"comments":[`+cmt("12", "bd-b")+`]`) + issue("bd-c", ""),
			"bd-c", "13"},
		{"integers on another issue only", issue("bd-a", `,"comments":[`+cmt("1", "bd-a")+`]`) + issue("bd-b", ""), "bd-b", "2"},
		{"bd 1.x UUID strings", issue("bd-a", `,"comments":[`+cmt(`"0f8e3c2a-1b2c-4d5e-8f90-123456789abc"`, "bd-a")+`]`), "bd-a", "uuid"},
		{"no comments yet: 1, which bd 0.49.6 and bd 1.x both load", issue("bd-a", ""), "bd-a", "1"},
		{"integers beside UUIDs: the next integer", issue("bd-a", `,"comments":[`+cmt(`"0f8e3c2a-1b2c-4d5e-8f90-123456789abc"`, "bd-a")+`,`+cmt("4", "bd-a")+`]`), "bd-a", "5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse([]byte(tc.file))
			if err != nil {
				t.Fatal(err)
			}
			c, err := s.AddComment(tc.on, "me", "new", bytes.NewReader(make([]byte, 16)), now)
			if err != nil {
				t.Fatal(err)
			}
			out := s.Bytes()
			if tc.want == "uuid" {
				if len(c.ID) != 36 || !bytes.Contains(out, []byte(`{"id":"`+c.ID+`"`)) {
					t.Fatalf("id %q; file:\n%s", c.ID, out)
				}
			} else if c.ID != tc.want || !bytes.Contains(out, []byte(`{"id":`+tc.want+`,"issue_id":"`+tc.on+`"`)) {
				t.Fatalf("id %q, want the number %s; file:\n%s", c.ID, tc.want, out)
			}
			// The file reads back, and every other line is unchanged.
			back, err := Parse(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.SplitAfter(tc.file, "\n") {
				if line != "" && !strings.Contains(line, `"id":"`+tc.on+`"`) && !bytes.Contains(out, []byte(line)) {
					t.Errorf("line changed: %s", line)
				}
			}
			iss, _ := back.Get(tc.on)
			if cs := back.Comments(iss); cs[len(cs)-1].ID != c.ID {
				t.Errorf("read back %q, want %q", cs[len(cs)-1].ID, c.ID)
			}
		})
	}
}
