package docs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/rogpeppe/go-internal/txtar"
)

// errorRow is one row of errors.md: a message (… for the parts that vary),
// its exit code and the script that pins it.
type errorRow struct {
	line    int
	message string
	code    int
	script  string
}

// errorRowRE reads a row: | what | `message` | code | `script` |.
var errorRowRE = regexp.MustCompile("^\\| (.*) \\| `(.+)` \\| ([0-9]+) \\| `([a-z0-9_]+)` \\|$")

func readErrorRows(t *testing.T) []errorRow {
	t.Helper()
	data, err := os.ReadFile("errors.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []errorRow
	for i, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| what ") || strings.HasPrefix(line, "|---") {
			continue
		}
		m := errorRowRE.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("errors.md:%d: a table row not in the form | what | `message` | code | `script` |: %s", i+1, line)
			continue
		}
		code, _ := strconv.Atoi(m[3])
		msg := strings.ReplaceAll(m[2], `\|`, "|") // a | escaped for the table
		rows = append(rows, errorRow{line: i + 1, message: msg, code: code, script: m[4]})
	}
	return rows
}

// scriptBlock is one command of a script that memctl runs with the exit
// code it must have, and the texts its assertions after it look for.
type scriptBlock struct {
	code    int // -1: exec or ! exec, whose code is not pinned
	command string
	texts   []string
}

var condRE = regexp.MustCompile(`^\[[^\]]*\]\s*`)

// scriptBlocks cuts a testscript into its commands with what the stdout,
// stderr and cmp stderr assertions that follow each look for (negated
// assertions left out).
func scriptBlocks(ar *txtar.Archive) []scriptBlock {
	var blocks []scriptBlock
	for _, raw := range strings.Split(string(ar.Comment), "\n") {
		line := condRE.ReplaceAllString(strings.TrimSpace(raw), "")
		args := strings.Fields(line)
		if len(args) == 0 || strings.HasPrefix(line, "#") {
			continue
		}
		switch {
		case args[0] == "exitcode" && len(args) > 2:
			code, err := strconv.Atoi(args[1])
			if err != nil {
				code = -1
			}
			blocks = append(blocks, scriptBlock{code: code, command: line})
		case args[0] == "exec" || args[0] == "session" || (args[0] == "!" && len(args) > 1 && args[1] == "exec"):
			code := -1
			if args[0] == "exec" {
				code = 0
			}
			blocks = append(blocks, scriptBlock{code: code, command: line})
		case len(blocks) == 0:
		case args[0] == "stdout" || args[0] == "stderr":
			blocks[len(blocks)-1].texts = append(blocks[len(blocks)-1].texts, patternText(strings.TrimSpace(line[len(args[0]):])))
		case args[0] == "cmp" && len(args) == 3 && (args[1] == "stderr" || args[1] == "stdout"):
			for _, f := range ar.Files {
				if f.Name == args[2] {
					blocks[len(blocks)-1].texts = append(blocks[len(blocks)-1].texts, string(f.Data), jsonStrings(f.Data))
				}
			}
		}
	}
	return blocks
}

// patternText is the text a stdout or stderr assertion's regular
// expression looks for: the testscript quotes and -count flag removed,
// escapes undone, anchors and wildcards dropped.
func patternText(arg string) string {
	if strings.HasPrefix(arg, "-count=") {
		_, arg, _ = strings.Cut(arg, " ")
	}
	var b strings.Builder
	quoted := false
	for i := 0; i < len(arg); i++ {
		c := arg[i]
		switch {
		case c == '\'' && quoted && i+1 < len(arg) && arg[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case c == '\'':
			quoted = !quoted
		case c == '\\' && i+1 < len(arg):
			i++
			b.WriteByte(arg[i])
		case c == '$' && i+1 < len(arg) && (arg[i+1] == '{' || arg[i+1] == '_' || unicode.IsLetter(rune(arg[i+1]))):
			// A variable of the script: its value varies, as … does.
			b.WriteString("…")
			for i++; i+1 < len(arg) && (arg[i+1] == '_' || arg[i+1] == '}' || unicode.IsLetter(rune(arg[i+1])) || unicode.IsDigit(rune(arg[i+1]))); i++ {
			}
		case c == '.' && i+1 < len(arg) && (arg[i+1] == '*' || arg[i+1] == '+'):
			b.WriteString("…") // a wildcard: any text
			i++
		case c == '^' || c == '$':
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// jsonStrings is every string in a JSON document, one a line, so that a
// message in a golden JSON error is found as it is printed.
func jsonStrings(data []byte) string {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v + "\n")
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return b.String()
}

// containsInOrder reports whether text holds the parts of message between
// its … in order.
func containsInOrder(text, message string) bool {
	for _, part := range strings.Split(message, "…") {
		i := strings.Index(text, part)
		if i < 0 {
			return false
		}
		text = text[i+len(part):]
	}
	return true
}

// pins reports whether a block of blocks runs memctl with exit code
// code and asserts message.
func pins(blocks []scriptBlock, message string, code int) bool {
	for _, b := range blocks {
		if b.code != code {
			continue
		}
		for _, text := range b.texts {
			if containsInOrder(text, message) {
				return true
			}
		}
	}
	return false
}

func loadScript(name string) (*txtar.Archive, error) {
	return txtar.ParseFile(filepath.Join("..", "testdata", "script", name+".txtar"))
}

// TestErrorsArePinned: every row of errors.md names a script that runs a
// command with the row's exit code and checks the row's message after it,
// so a changed message, code or a removed script fails here.
func TestErrorsArePinned(t *testing.T) {
	rows := readErrorRows(t)
	if len(rows) < 100 {
		t.Fatalf("errors.md has %d rows; the table was not read", len(rows))
	}
	scripts := map[string][]scriptBlock{}
	for _, r := range rows {
		blocks, ok := scripts[r.script]
		if !ok {
			ar, err := loadScript(r.script)
			if err != nil {
				t.Errorf("errors.md:%d: script %s: %v", r.line, r.script, err)
				scripts[r.script] = nil
				continue
			}
			blocks = scriptBlocks(ar)
			scripts[r.script] = blocks
		}
		if blocks != nil && !pins(blocks, r.message, r.code) {
			t.Errorf("errors.md:%d: testdata/script/%s.txtar has no command with exit %d (exitcode %d memctl …) followed by a check of %q", r.line, r.script, r.code, r.code, r.message)
		}
	}
}

// TestPinnedErrorsAreListed: every error message a script pins with its
// exit code ("exitcode N memctl …" and then stderr 'memctl: error: …') is
// a row of errors.md, so a new refusal gets its row.
func TestPinnedErrorsAreListed(t *testing.T) {
	rows := readErrorRows(t)
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "script", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".txtar")
		ar, err := loadScript(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range scriptBlocks(ar) {
			if b.code <= 0 {
				continue
			}
			for _, text := range b.texts {
				msg, ok := pinnedMessage(text)
				if !ok {
					continue
				}
				if !listed(rows, msg, b.code) {
					t.Errorf("%s: %q exits %d with %q; add a row to docs/errors.md: | … | `%s` | %d | `%s` |", name, b.command, b.code, msg, msg, b.code, name)
				}
			}
		}
	}
}

// pinnedMessage is the message of an error line a script asserts
// ("memctl: error: …"), without the id a batch command puts in front.
func pinnedMessage(text string) (string, bool) {
	_, msg, ok := strings.Cut(text, "memctl: error: ")
	return strings.TrimSpace(msg), ok && strings.TrimSpace(msg) != ""
}

// listed reports whether a row with code has a message whose parts the
// pinned text msg holds in order.
func listed(rows []errorRow, msg string, code int) bool {
	for _, r := range rows {
		if r.code == code && containsInOrder(msg, r.message) {
			return true
		}
	}
	return false
}
