package hooks

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSessionStartOutput(t *testing.T) {
	for name, want := range map[string]string{
		"claude":   `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"a <b> & \"c\"\n"}}` + "\n",
		"codex":    `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"a <b> & \"c\"\n"}}` + "\n",
		"gemini":   `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"a <b> & \"c\"\n"}}` + "\n",
		"cursor":   `{"additional_context":"a <b> & \"c\"\n"}` + "\n",
		"opencode": "a <b> & \"c\"\n",
	} {
		rt, _ := Lookup(name)
		if got := string(SessionStartOutput(rt, "a <b> & \"c\"\n")); got != want {
			t.Errorf("%s: got %s want %s", name, got, want)
		}
	}
	claude, _ := Lookup("claude")
	if got := string(SessionStartOutput(claude, "")); got != `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":""}}`+"\n" {
		t.Errorf("empty pack: %s", got)
	}
	opencode, _ := Lookup("opencode")
	if got := SessionStartOutput(opencode, ""); got != nil {
		t.Errorf("opencode, empty pack: %q", got)
	}
}

func TestFlushOutput(t *testing.T) {
	codex, _ := Lookup("codex")
	claude, _ := Lookup("claude")
	if got := string(FlushOutput(codex, Stop)); got != `{"continue":true}`+"\n" {
		t.Errorf("codex stop: %q", got)
	}
	if got := FlushOutput(codex, PreCompact); got != nil {
		t.Errorf("codex pre-compact: %q", got)
	}
	if got := FlushOutput(claude, Stop); got != nil {
		t.Errorf("claude stop: %q", got)
	}
}

func TestCutContext(t *testing.T) {
	short := "a\nb\n"
	if got := CutContext(short, 100); got != short {
		t.Errorf("short text changed: %q", got)
	}
	long := strings.Repeat("fact line é\n", 2000)
	got := CutContext(long, MaxContext)
	if n := utf8.RuneCountInString(got); n > MaxContext {
		t.Errorf("cut to %d characters, want at most %d", n, MaxContext)
	}
	if !strings.HasSuffix(got, "run memctl prime for the rest]\n") || !strings.HasPrefix(got, "fact line é\n") {
		t.Errorf("cut text: ...%q", got[len(got)-80:])
	}
	body := strings.TrimSuffix(got, "\n[cut to fit the hook's limit: run memctl prime for the rest]\n")
	if !strings.HasSuffix(body, "fact line é") {
		t.Errorf("not cut at a line's end: %q", body[len(body)-20:])
	}
}

func TestActionOf(t *testing.T) {
	for ev, want := range map[string]Action{SessionStart: ActionPrime, PreCompact: ActionFlush, PostCompact: ActionFlush,
		SessionEnd: ActionFlush, Stop: ActionFlush} {
		if got := ActionOf(ev); got != want {
			t.Errorf("ActionOf(%q) = %v, want %v", ev, got, want)
		}
	}
}

func TestDir(t *testing.T) {
	env := map[string]string{"CLAUDE_PROJECT_DIR": "/c", "GEMINI_PROJECT_DIR": "/g"}
	getenv := func(k string) string { return env[k] }
	if got := Dir("/cwd", getenv); got != "/cwd" {
		t.Errorf("cwd: %q", got)
	}
	if got := Dir("", getenv); got != "/c" {
		t.Errorf("claude: %q", got)
	}
	delete(env, "CLAUDE_PROJECT_DIR")
	if got := Dir("", getenv); got != "/g" {
		t.Errorf("gemini: %q", got)
	}
	delete(env, "GEMINI_PROJECT_DIR")
	if got := Dir("", getenv); got != "" {
		t.Errorf("none: %q", got)
	}
}
