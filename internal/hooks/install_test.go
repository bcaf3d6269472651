package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func project(t *testing.T) Place {
	t.Helper()
	return Place{Scope: Project, Root: t.TempDir()}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func mustLookup(t *testing.T, name string) *Runtime {
	t.Helper()
	rt, ok := Lookup(name)
	if !ok {
		t.Fatalf("no runtime %q", name)
	}
	return rt
}

// claudeSettings has another tool's keys and a hook of its own in an
// event memctl hooks too.
const claudeSettings = `{
  "permissions": {"allow": ["Bash(go test:*)"], "deny": []},
  "hooks": {
    "SessionStart": [
      {"matcher": "startup", "hooks": [{"type": "command", "command": "bd prime --hook-json"}]}
    ],
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 5}]}
    ]
  },
  "model": "opus",
  "env": {"A": "1", "Z": "2", "B": 3.50}
}
`

func TestInstallKeepsOtherEntriesAndIsIdempotent(t *testing.T) {
	p := project(t)
	rt := mustLookup(t, "claude")
	path := filepath.Join(p.Root, ".claude", "settings.json")
	write(t, path, claudeSettings)

	res, err := Install(rt, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res[0].Changed || res[0].Backup != ".claude/settings.json.memctl-backup" {
		t.Fatalf("first install: %+v", res[0])
	}
	if got := read(t, path+backupSuffix); got != claudeSettings {
		t.Errorf("backup is not the file as it was:\n%s", got)
	}
	once := read(t, path)
	for _, want := range []string{`"bd prime --hook-json"`, `"./check.sh"`, `"B": 3.50`, `"deny": []`,
		`"command": "memctl hook claude session-start"`, `"command": "memctl hook claude session-end"`} {
		if !strings.Contains(once, want) {
			t.Errorf("installed file lacks %s:\n%s", want, once)
		}
	}
	// Keys keep their order: permissions, hooks, model, env; A, Z, B.
	order := []string{`"permissions"`, `"hooks"`, `"SessionStart"`, `"bd prime`, `"memctl hook claude session-start"`,
		`"PreToolUse"`, `"PreCompact"`, `"PostCompact"`, `"SessionEnd"`, `"model"`, `"env"`, `"A"`, `"Z"`, `"B"`}
	last := -1
	for _, k := range order {
		i := strings.Index(once, k)
		if i < last {
			t.Errorf("%s is out of order in:\n%s", k, once)
		}
		last = i
	}
	if st := Status(rt, p); st.State != Installed {
		t.Errorf("status after install = %+v", st)
	}

	// Again: same bytes, nothing written, the backup left alone.
	write(t, path+backupSuffix, "sentinel")
	res, err = Install(rt, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Changed || read(t, path) != once || read(t, path+backupSuffix) != "sentinel" {
		t.Errorf("second install changed something: %+v", res[0])
	}

	// Uninstall gives back the other tool's settings, exactly.
	res, err = Uninstall(rt, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	after, err := parseObject([]byte(read(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := parseObject([]byte(claudeSettings))
	if !res[0].Changed || !equal(after, orig) {
		t.Errorf("uninstall left:\n%s", read(t, path))
	}
	if st := Status(rt, p); st.State != NotInstalled {
		t.Errorf("status after uninstall = %+v", st)
	}
}

func TestInstallReplacesOlderEntries(t *testing.T) {
	p := project(t)
	rt := mustLookup(t, "claude")
	path := filepath.Join(p.Root, ".claude", "settings.json")
	// What docs/runs.md had people paste before hooks install existed,
	// beside another tool's handler in the same group.
	write(t, path, `{"hooks": {"PreCompact": [{"matcher": "", "hooks": [
		{"type": "command", "command": "memctl flush", "timeout": 30},
		{"type": "command", "command": "other"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "/usr/local/bin/memctl flush"}]}]}}`)
	if st := Status(rt, p); st.State != Outdated {
		t.Fatalf("status = %+v, want outdated", st)
	}
	if _, err := Install(rt, p, Options{}); err != nil {
		t.Fatal(err)
	}
	got := read(t, path)
	// Stop is not an event install hooks: its memctl flush is the user's.
	if strings.Count(got, "memctl flush") != 1 || !strings.Contains(got, `"Stop"`) || !strings.Contains(got, `"other"`) {
		t.Errorf("older entries not replaced, or another's lost:\n%s", got)
	}
	if st := Status(rt, p); st.State != Installed {
		t.Errorf("status = %+v", st)
	}
	// A changed timeout is outdated.
	write(t, path, strings.Replace(got, `"timeout": 30`, `"timeout": 31`, 1))
	if st := Status(rt, p); st.State != Outdated {
		t.Errorf("edited timeout: status = %+v", st)
	}
}

func TestInstallRefusesWhatItCannotRead(t *testing.T) {
	p := project(t)
	rt := mustLookup(t, "gemini")
	path := filepath.Join(p.Root, ".gemini", "settings.json")
	bad := "{\n  // a comment\n  \"a\": 1\n}\n"
	write(t, path, bad)
	_, err := Install(rt, p, Options{MCP: true})
	var fe *FileError
	var se *syntaxError
	if !errors.As(err, &fe) || !errors.As(err, &se) || fe.File != ".gemini/settings.json" || se.Line != 2 || se.Column != 3 {
		t.Fatalf("err = %v, want a syntax error at .gemini/settings.json line 2, column 3", err)
	}
	if read(t, path) != bad {
		t.Error("the file was changed")
	}
	if _, err := os.Stat(path + backupSuffix); err == nil {
		t.Error("a backup was written")
	}
	if st := Status(rt, p); st.State != Unknown || !strings.Contains(st.Problem, "line 2, column 3") {
		t.Errorf("status = %+v", st)
	}
	write(t, path, `{"hooks": []}`)
	if _, err := Install(rt, p, Options{}); err == nil || !strings.Contains(err.Error(), `"hooks" is not an object`) {
		t.Errorf("hooks as a list: err = %v", err)
	}
}

func TestInstallSkipsSymlink(t *testing.T) {
	p := project(t)
	rt := mustLookup(t, "codex")
	target := filepath.Join(p.Root, "dotfiles.json")
	write(t, target, "{}\n")
	if err := os.MkdirAll(filepath.Join(p.Root, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(p.Root, ".codex", "hooks.json")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	res, err := Install(rt, p, Options{})
	if err != nil || res[0].Changed || !strings.Contains(res[0].Warning, "symbolic link") {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	if read(t, target) != "{}\n" {
		t.Error("written through the link")
	}
}

func TestCursorFileIsFlatWithVersion(t *testing.T) {
	p := project(t)
	rt := mustLookup(t, "cursor")
	path := filepath.Join(p.Root, ".cursor", "hooks.json")
	if _, err := Install(rt, p, Options{}); err != nil {
		t.Fatal(err)
	}
	want := `{
  "version": 1,
  "hooks": {
    "sessionStart": [
      {
        "command": "memctl hook cursor session-start"
      }
    ],
    "preCompact": [
      {
        "command": "memctl hook cursor pre-compact"
      }
    ],
    "sessionEnd": [
      {
        "command": "memctl hook cursor session-end"
      }
    ]
  }
}
`
	if got := read(t, path); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Nothing else in it: uninstall removes the file it made.
	res, err := Uninstall(rt, p, Options{})
	if err != nil || !res[0].Removed {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file still there: %v", err)
	}
}

func TestGeminiHooksAndMCPShareOneBackup(t *testing.T) {
	p := project(t)
	rt := mustLookup(t, "gemini")
	path := filepath.Join(p.Root, ".gemini", "settings.json")
	orig := `{"context": {"fileName": ["AGENTS.md"]}}`
	write(t, path, orig)
	res, err := Install(rt, p, Options{MCP: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || read(t, path+backupSuffix) != orig {
		t.Errorf("res = %+v; backup = %s", res, read(t, path+backupSuffix))
	}
	got := read(t, path)
	for _, want := range []string{`"timeout": 10000`, `"PreCompress"`, `"mcpServers"`, `"args": [`} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %s:\n%s", want, got)
		}
	}
	if st := MCPStatus(rt, p); st.State != Installed {
		t.Errorf("mcp status = %+v", st)
	}
	if _, err := Uninstall(rt, p, Options{MCP: true}); err != nil {
		t.Fatal(err)
	}
	after, _ := parseObject([]byte(read(t, path)))
	want, _ := parseObject([]byte(orig))
	if !equal(after, want) {
		t.Errorf("after uninstall:\n%s", read(t, path))
	}
}

func TestCodexMCPIsAppendedAsText(t *testing.T) {
	p := project(t)
	rt := mustLookup(t, "codex")
	path := filepath.Join(p.Root, ".codex", "config.toml")
	orig := "# my settings\nmodel = \"o5\" # inline comment\n\n[features]\nhooks = true\n"
	write(t, path, orig)
	res, err := Install(rt, p, Options{MCP: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || !res[1].Changed {
		t.Fatalf("res = %+v", res)
	}
	if got := read(t, path); got != orig+"\n"+codexBlock {
		t.Errorf("config.toml:\n%s", got)
	}
	if st := MCPStatus(rt, p); st.State != Installed {
		t.Errorf("status = %+v", st)
	}
	if res, _ := Install(rt, p, Options{MCP: true}); res[1].Changed {
		t.Error("second install changed config.toml")
	}
	if _, err := Uninstall(rt, p, Options{MCP: true}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != orig {
		t.Errorf("after uninstall:\n%q", got)
	}
	// A table memctl did not write is left alone, with the snippet.
	edited := orig + "\n[mcp_servers.memctl]\ncommand = \"/opt/memctl\"\nargs = [\"mcp\"]\n"
	write(t, path, edited)
	res, err = Install(rt, p, Options{MCP: true})
	if err != nil || res[1].Changed || !strings.Contains(res[1].Warning, codexBlock) || read(t, path) != edited {
		t.Errorf("res = %+v, err = %v", res, err)
	}
	// An inline mcp_servers table cannot take another table: the snippet.
	inline := "mcp_servers = { other = { command = \"x\" } }\n"
	write(t, path, inline)
	res, err = Install(rt, p, Options{MCP: true})
	if err != nil || res[1].Changed || !strings.Contains(res[1].Warning, "by hand") || read(t, path) != inline {
		t.Errorf("inline: res = %+v, err = %v", res, err)
	}
	write(t, path, "model = \n")
	if _, err := Install(rt, p, Options{MCP: true}); err == nil || !strings.Contains(err.Error(), ".codex/config.toml: not valid TOML: line 1, column 9") {
		t.Errorf("bad toml: err = %v", err)
	}
}

func TestClaudeGlobalMCPIsLeftToClaude(t *testing.T) {
	home := t.TempDir()
	p := Place{Scope: Global, Home: home}
	rt := mustLookup(t, "claude")
	res, err := Install(rt, p, Options{MCP: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude", "settings.json")); err != nil {
		t.Errorf("global settings not written: %v", err)
	}
	if len(res) != 2 || !strings.Contains(res[1].Warning, "claude mcp add --scope user memctl -- memctl mcp") {
		t.Errorf("res = %+v", res)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); err == nil {
		t.Error("~/.claude.json was written")
	}
}

func TestOpenCodePlugin(t *testing.T) {
	p := project(t)
	rt := mustLookup(t, "opencode")
	path := filepath.Join(p.Root, ".opencode", "plugins", "memctl.js")
	if _, err := Install(rt, p, Options{MCP: true}); err != nil {
		t.Fatal(err)
	}
	if read(t, path) != plugin || Status(rt, p).State != Installed {
		t.Error("plugin not installed")
	}
	if !strings.Contains(read(t, filepath.Join(p.Root, "opencode.json")), `"type": "local"`) {
		t.Error("opencode.json lacks the MCP server")
	}
	write(t, path, pluginMarker+" (older)\n")
	if st := Status(rt, p); st.State != Outdated {
		t.Errorf("older plugin: %+v", st)
	}
	write(t, path, "export const Mine = async () => ({})\n")
	if _, err := Install(rt, p, Options{}); err == nil || !strings.Contains(err.Error(), "not written by memctl") {
		t.Errorf("foreign plugin: err = %v", err)
	}
	if res, _ := Uninstall(rt, p, Options{}); res[0].Changed {
		t.Error("uninstall removed a plugin memctl did not write")
	}
}

func TestIsOurs(t *testing.T) {
	claude := mustLookup(t, "claude")
	for _, c := range []struct {
		event, handler string
		want           bool
	}{
		{"SessionStart", `{"command": "memctl hook claude session-start"}`, true},
		{"PreCompact", `{"command": "/usr/local/bin/memctl hook claude pre-compact --newer"}`, true},
		{"SessionEnd", `{"command": "C:\\tools\\memctl.exe hook claude session-end"}`, true},
		{"PostCompact", `{"command": "memctl", "args": ["hook", "claude", "post-compact"]}`, true},
		{"PreCompact", `{"command": "memctl flush"}`, true},
		{"SessionEnd", `{"command": "memctl flush --timeout 8s"}`, true},
		// a user's own memctl commands, and memctl on events install
		// does not hook, are not memctl's
		{"UserPromptSubmit", `{"command": "memctl recall --json \"$PROMPT\""}`, false},
		{"Stop", `{"command": "memctl flush"}`, false},
		{"SessionStart", `{"command": "memctl prime"}`, false},
		{"SessionStart", `{"command": "memctl hook codex session-start"}`, false},
		{"SessionStart", `{"command": "memctl-other hook claude session-start"}`, false},
		{"SessionStart", `{"command": "echo memctl hook claude"}`, false},
		{"SessionStart", `{"command": ""}`, false},
		{"SessionStart", `"memctl hook claude session-start"`, false},
	} {
		v, err := parseObject([]byte(`{"h":` + c.handler + `}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := claude.isOurs(c.event, v.vals["h"]); got != c.want {
			t.Errorf("isOurs(%s, %s) = %v, want %v", c.event, c.handler, got, c.want)
		}
	}
}

func TestOwnMemctlHooksAreLeftAlone(t *testing.T) {
	p := project(t)
	rt := mustLookup(t, "claude")
	path := filepath.Join(p.Root, ".claude", "settings.json")
	const mine = `{
  "hooks": {
    "UserPromptSubmit": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "memctl recall --json \"$PROMPT\""
          }
        ]
      }
    ]
  }
}
`
	write(t, path, mine)
	if st := Status(rt, p); st.State != NotInstalled {
		t.Errorf("status with only the user's memctl hook = %+v", st)
	}
	if _, err := Install(rt, p, Options{}); err != nil {
		t.Fatal(err)
	}
	if st := Status(rt, p); st.State != Installed || !strings.Contains(read(t, path), "memctl recall") {
		t.Errorf("after install: %+v\n%s", st, read(t, path))
	}
	res, err := Uninstall(rt, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != mine || res[0].Removed {
		t.Errorf("uninstall: %+v\n%s", res[0], got)
	}
}

func TestUninstallLeavesFilesWithoutMemctl(t *testing.T) {
	for _, c := range []struct{ rt, data string }{
		{"cursor", `{"version":1,"hooks":{}}`},
		{"claude", `{"hooks":{},"model":"opus"}`},
		{"claude", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"memctl flush"}]}]}}`},
		{"claude", "{\"model\":\n \"opus\"}"},
	} {
		p := project(t)
		rt := mustLookup(t, c.rt)
		abs, _ := rt.File(p)
		write(t, abs, c.data)
		res, err := Uninstall(rt, p, Options{MCP: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(abs); err != nil || read(t, abs) != c.data || res[0].Changed || res[0].Backup != "" {
			t.Errorf("%s %s: uninstall changed it: %+v, %v", c.rt, c.data, res[0], err)
		}
	}
}

func TestCursorKeepsALaterVersion(t *testing.T) {
	p := project(t)
	rt := mustLookup(t, "cursor")
	abs, _ := rt.File(p)
	write(t, abs, `{"version": 2, "hooks": {}}`)
	if _, err := Install(rt, p, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, abs); !strings.Contains(got, `"version": 2,`) {
		t.Errorf("version changed:\n%s", got)
	}
	if st := Status(rt, p); st.State != Installed {
		t.Errorf("status = %+v", st)
	}
	write(t, abs, `{"version": 0, "hooks": {}}`)
	if _, err := Install(rt, p, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, abs); !strings.Contains(got, `"version": 1,`) {
		t.Errorf("version 0 not raised to 1:\n%s", got)
	}
}

func TestClaudePostCompactIsAsync(t *testing.T) {
	p := project(t)
	rt := mustLookup(t, "claude")
	if _, err := Install(rt, p, Options{}); err != nil {
		t.Fatal(err)
	}
	abs, _ := rt.File(p)
	got := read(t, abs)
	want := `"command": "memctl hook claude post-compact",
            "timeout": 30,
            "async": true`
	if !strings.Contains(got, want) || strings.Count(got, `"async"`) != 1 {
		t.Errorf("PostCompact not async (or others are):\n%s", got)
	}
}

func TestRuntimeTable(t *testing.T) {
	for _, rt := range Runtimes {
		for _, h := range rt.hooks {
			f := strings.Fields(h.Command)
			if len(f) != 4 || f[0] != "memctl" || f[1] != "hook" || f[2] != rt.Name || !ValidEvent(f[3]) {
				t.Errorf("%s: bad command %q", rt.Name, h.Command)
			}
		}
	}
}

func TestNonObjectsInAnEventArrayAreKept(t *testing.T) {
	for _, name := range []string{"claude", "cursor"} {
		t.Run(name, func(t *testing.T) {
			p := project(t)
			rt := mustLookup(t, name)
			abs, _ := rt.File(p)
			ev, cmd := rt.hooks[0].Event, rt.hooks[0].Command
			var handler string
			if rt.flat {
				handler = `{"command":"` + cmd + `"}`
			} else {
				handler = `{"hooks":[{"type":"command","command":"` + cmd + `"}]}`
			}
			write(t, abs, `{"hooks":{"`+ev+`":[null,"x",3,[],`+handler+`]}}`)
			if _, err := Install(rt, p, Options{}); err != nil {
				t.Fatal(err)
			}
			if got := Status(rt, p); got.State != Installed {
				t.Fatalf("after install: %+v", got)
			}
			if _, err := Uninstall(rt, p, Options{}); err != nil {
				t.Fatal(err)
			}
			got := read(t, abs)
			if !strings.Contains(got, "null,\n      \"x\",\n      3,\n      []\n") || strings.Contains(got, "memctl") {
				t.Errorf("after uninstall:\n%s", got)
			}
		})
	}
}

func TestProjectBackupsGoUnderTheGitDirectory(t *testing.T) {
	p := project(t)
	p.BackupDir = filepath.Join(p.Root, ".git", "memctl", "backups")
	rt := mustLookup(t, "gemini")
	path := filepath.Join(p.Root, ".gemini", "settings.json")
	const orig = `{"model": {"name": "gemini-3-pro"}}`
	write(t, path, orig)
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := Install(rt, p, Options{MCP: true})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(p.BackupDir, ".gemini", "settings.json")
	if res[0].Backup != ".git/memctl/backups/.gemini/settings.json" || read(t, want) != orig {
		t.Fatalf("res = %+v", res)
	}
	if _, err := os.Stat(path + backupSuffix); err == nil {
		t.Error("a backup was left in the working tree")
	}
	for _, f := range []string{path, want} {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want 0600 as the file was", f, fi.Mode(), err)
		}
	}
	// A file uninstall removes held only memctl's entries: no backup of it.
	p2 := project(t)
	p2.BackupDir = filepath.Join(p2.Root, ".git", "memctl", "backups")
	if _, err := Install(rt, p2, Options{MCP: true}); err != nil {
		t.Fatal(err)
	}
	res, err = Uninstall(rt, p2, Options{MCP: true})
	if err != nil || !res[0].Removed || res[0].Backup != "" {
		t.Errorf("uninstall: %+v, %v", res, err)
	}
	if _, err := os.Stat(p2.BackupDir); err == nil {
		t.Error("uninstall backed up a file it removed")
	}
}

func TestGlobalFilesArePrivate(t *testing.T) {
	p := Place{Scope: Global, Home: t.TempDir()}
	rt := mustLookup(t, "codex")
	res, err := Install(rt, p, Options{MCP: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		abs := filepath.Join(p.Home, strings.TrimPrefix(r.File, "~/"))
		if fi, err := os.Stat(abs); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want 0600", r.File, fi.Mode(), err)
		}
	}
	// An existing file keeps its mode, and its backup, next to it, has it.
	abs := filepath.Join(p.Home, ".codex", "config.toml")
	write(t, abs, "model = \"o5\"\n")
	if err := os.Chmod(abs, 0o640); err != nil {
		t.Fatal(err)
	}
	write(t, abs+backupSuffix, "older")
	if _, err := Install(rt, p, Options{MCP: true}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{abs, abs + backupSuffix} {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("%s: mode %v (%v), want 0640", f, fi.Mode(), err)
		}
	}
}
