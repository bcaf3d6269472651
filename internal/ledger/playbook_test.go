package ledger

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

const samplePlaybook = "# Playbook 0123456789ab\n" +
	"\n## Error\n\n```text\npanic: runtime error: index out of range [N] with length N\n```\n" +
	"\n## What it looks like\n\n```text\n--- FAIL: TestParse (0.00s)\npanic: runtime error: index out of range [3] with length 3\n```\n" +
	"\n## Fix\n\n1. Check the length before indexing.\n2. Run the test again:\n\n   go test ./internal/x\n" +
	"\n## Evidence\n\n- run:r-41\n- commit:4f2a9c1\n"

func TestFormatPlaybookRoundTrip(t *testing.T) {
	t.Parallel()
	c := PlaybookContent{
		Signature: "0123456789ab",
		Error:     "panic: runtime error: index out of range [N] with length N",
		Excerpt:   "--- FAIL: TestParse (0.00s)\npanic: runtime error: index out of range [3] with length 3",
		Steps:     []string{"Check the length before indexing.", "Run the test again:\n\ngo test ./internal/x"},
		Evidence:  []string{"run:r-41", "commit:4f2a9c1"},
	}
	src := FormatPlaybook(c)
	if string(src) != samplePlaybook {
		t.Fatalf("FormatPlaybook:\n%s\nwant:\n%s", src, samplePlaybook)
	}
	p := ParsePlaybook(".ledger/playbooks/0123456789ab.md", src)
	if len(p.Problems) != 0 {
		t.Fatalf("problems: %+v", p.Problems)
	}
	got := PlaybookContent{Signature: p.Signature, Error: p.Error, Excerpt: p.Excerpt, Steps: p.StepTexts(), Evidence: p.Evidence}
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("parsed %+v\nwant %+v", got, c)
	}
	if p.Steps[1].Line != 19 || p.Steps[1].EndLine != 21 {
		t.Errorf("step 2 at lines %d-%d, want 19-21", p.Steps[1].Line, p.Steps[1].EndLine)
	}
}

func TestFormatPlaybookFenceLongerThanText(t *testing.T) {
	t.Parallel()
	c := PlaybookContent{Signature: "0123456789ab", Error: "```\nfenced in the error\n```", Steps: []string{"x"}, Evidence: []string{"run:r-1"}}
	p := ParsePlaybook("p.md", FormatPlaybook(c))
	if p.Error != c.Error || len(p.Problems) != 0 {
		t.Fatalf("error %q, problems %+v", p.Error, p.Problems)
	}
}

func TestParsePlaybookLenient(t *testing.T) {
	t.Parallel()
	// What a person may write: prose under the heading, the error as
	// plain text, sections in another order, a section memctl does not
	// know, "1)" markers and CRLF line endings.
	src := "# Playbook 0123456789ab\r\nWritten after the outage.\r\n\r\n## Fix\r\n1) Restart it.\r\n1) Then check the logs.\r\n\r\n## Notes\r\nanything\r\n\r\n## Error\r\nconnection refused  \r\n"
	p := ParsePlaybook("p.md", []byte(src))
	if len(p.Problems) != 0 {
		t.Fatalf("problems: %+v", p.Problems)
	}
	if p.Error != "connection refused" || !reflect.DeepEqual(p.StepTexts(), []string{"Restart it.", "Then check the logs."}) {
		t.Fatalf("error %q steps %q", p.Error, p.StepTexts())
	}
}

func TestParsePlaybookProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src string
		line      int
		msg       string
	}{
		{"empty file", "", 1, "is empty"},
		{"no heading", "Some text\n\n## Fix\n\n1. x\n", 1, `"# Playbook <signature>"`},
		{"bad signature", "# Playbook 0123456789AB\n\n## Fix\n\n1. x\n", 1, `"0123456789AB" is not a signature`},
		{"prose in fix", "# Playbook 0123456789ab\n\n## Fix\n\n1. x\nnot indented\n", 6, "not a numbered step"},
		{"bullets in fix", "# Playbook 0123456789ab\n\n## Fix\n\n- x\n", 5, "not a numbered step"},
		{"no steps", "# Playbook 0123456789ab\n\n## Fix\n\n## Evidence\n", 3, "has no steps"},
		{"no fix", "\n# Playbook 0123456789ab\n\n## Evidence\n\n- run:r-1\n", 2, `no "## Fix" section`},
		{"empty step", "# Playbook 0123456789ab\n\n## Fix\n\n1. x\n2.\n", 6, "an empty step"},
		{"text after the error's block", "# Playbook 0123456789ab\n\n## Error\n\n```\nboom\n```\n\nmore\n\n## Fix\n\n1. x\n", 9, "text after the code block"},
		{"bad evidence", "# Playbook 0123456789ab\n\n## Fix\n\n1. x\n\n## Evidence\n\n- run:r-1\n- the CI run\n", 10, "kind:ref"},
		{"unclosed fence", "# Playbook 0123456789ab\n\n## Error\n\n```\nboom\n\n## Fix\n\n1. x\n", 5, "never closed"},
		{"two fix sections", "# Playbook 0123456789ab\n\n## Fix\n\n1. x\n\n## fix\n\n1. y\n", 7, `a second "fix" section (the first is at line 3)`},
		{"NUL byte", "# Playbook 0123456789ab\n\n## Fix\n\n1. x\x00\n", 5, "NUL"},
		{"not UTF-8", "# Playbook 0123456789ab\n\n## Fix\n\n1. \xff\n", 5, "UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := ParsePlaybook(".ledger/playbooks/0123456789ab.md", []byte(tc.src))
			if len(p.Problems) == 0 {
				t.Fatalf("no problem")
			}
			got := p.Problems[0]
			if got.Line != tc.line || !strings.Contains(got.Message, tc.msg) {
				t.Fatalf("problem at line %d: %q; want line %d with %q", got.Line, got.Message, tc.line, tc.msg)
			}
			var pe *PlaybookError
			if err := p.Err(); !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), ".ledger/playbooks/0123456789ab.md:") {
				t.Fatalf("Err() = %v, want a *PlaybookError naming the file and line", err)
			}
		})
	}
}

func TestParsePlaybookConflict(t *testing.T) {
	t.Parallel()
	src := "# Playbook 0123456789ab\n\n## Fix\n\n<<<<<<< ours\n1. x\n=======\n1. y\n>>>>>>> theirs\n"
	p := ParsePlaybook("p.md", []byte(src))
	var ce *ConflictError
	if !errors.As(p.Err(), &ce) || ce.Line != 5 {
		t.Fatalf("Err() = %v, want a conflict at line 5", p.Err())
	}
}

func TestAppendPlaybook(t *testing.T) {
	t.Parallel()
	t.Run("new steps and evidence go to the end of their sections", func(t *testing.T) {
		t.Parallel()
		p := ParsePlaybook("p.md", []byte(samplePlaybook))
		out, n := AppendPlaybook([]byte(samplePlaybook), p, []string{"Check the length before indexing.", "Add a test with an empty slice."}, []string{"run:r-41", "run:r-57"})
		if n != 2 {
			t.Fatalf("added %d, want 2 (one step and one run are there already)", n)
		}
		want := strings.Replace(samplePlaybook, "   go test ./internal/x\n", "   go test ./internal/x\n3. Add a test with an empty slice.\n", 1) + "- run:r-57\n"
		if string(out) != want {
			t.Fatalf("got:\n%s\nwant:\n%s", out, want)
		}
		q := ParsePlaybook("p.md", out)
		if len(q.Problems) != 0 || len(q.Steps) != 3 || len(q.Evidence) != 3 {
			t.Fatalf("reparsed: %+v", q)
		}
	})
	t.Run("nothing new leaves the file as it is", func(t *testing.T) {
		t.Parallel()
		p := ParsePlaybook("p.md", []byte(samplePlaybook))
		out, n := AppendPlaybook([]byte(samplePlaybook), p, []string{"Check the length before indexing."}, []string{"commit:4f2a9c1"})
		if n != 0 || string(out) != samplePlaybook {
			t.Fatalf("added %d:\n%s", n, out)
		}
	})
	t.Run("a person's edits and other sections stay; numbering continues", func(t *testing.T) {
		t.Parallel()
		src := "# Playbook 0123456789ab\r\nOur notes.\r\n\r\n## Fix\r\n\r\n4. Restart it.\r\n\r\n## Notes\r\nkeep me\r\n"
		p := ParsePlaybook("p.md", []byte(src))
		out, _ := AppendPlaybook([]byte(src), p, []string{"Then check\nthe logs."}, []string{"run:r-2"})
		want := "# Playbook 0123456789ab\r\nOur notes.\r\n\r\n## Fix\r\n\r\n4. Restart it.\r\n5. Then check\r\n   the logs.\r\n\r\n## Notes\r\nkeep me\r\n\r\n## Evidence\r\n\r\n- run:r-2\r\n"
		if string(out) != want {
			t.Fatalf("got:\n%q\nwant:\n%q", out, want)
		}
	})
	t.Run("an empty evidence section gets its first item", func(t *testing.T) {
		t.Parallel()
		src := "# Playbook 0123456789ab\n\n## Evidence\n## Fix\n\n1. x\n"
		p := ParsePlaybook("p.md", []byte(src))
		out, _ := AppendPlaybook([]byte(src), p, nil, []string{"run:r-2"})
		want := "# Playbook 0123456789ab\n\n## Evidence\n\n- run:r-2\n\n## Fix\n\n1. x\n"
		if string(out) != want {
			t.Fatalf("got:\n%s\nwant:\n%s", out, want)
		}
	})
}

func TestValidSignature(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{"e3b0c44298fc": true, "e3b0c44298f": false, "e3b0c44298fcd": false, "E3B0C44298FC": false, "g3b0c44298fc": false} {
		if got := ValidSignature(s); got != want {
			t.Errorf("ValidSignature(%q) = %v, want %v", s, got, want)
		}
	}
}
