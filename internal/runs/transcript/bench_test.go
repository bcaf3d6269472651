package transcript

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// genClaude writes a Claude Code transcript of realistic event shapes (the
// envelope of every line, usage blocks, toolUseResult duplicates) until it
// has events lines or size bytes, whichever comes first. Each round is a
// request, a file read, a search, an edit, a go test (failing one round in
// three, with its output), a thinking block and an answer. Same seed, same
// transcript.
func genClaude(events, size int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	t0 := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	n, tool := 0, 0
	prev := any(nil)
	emit := func(typ string, msg map[string]any, extra map[string]any) {
		uuid := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<12), rng.IntN(1<<12), rng.Uint64()&(1<<48-1))
		ev := map[string]any{
			"parentUuid": prev, "isSidechain": false, "userType": "external", "cwd": "/home/dev/app",
			"sessionId": "5b0c2f1e-8d3a-4c7e-9f21-6a4d0e7b9c13", "version": "2.1.240", "gitBranch": "main",
			"type": typ, "message": msg, "uuid": uuid, "timestamp": t0.Add(time.Duration(n) * 1500 * time.Millisecond).Format(time.RFC3339Nano),
		}
		for k, v := range extra {
			ev[k] = v
		}
		_ = enc.Encode(ev)
		prev = uuid
		n++
	}
	assistant := func(content ...map[string]any) {
		emit("assistant", map[string]any{
			"model": "claude-opus-4-5-20251101", "id": fmt.Sprintf("msg_01%022d", n), "type": "message", "role": "assistant",
			"content": content, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 4, "cache_creation_input_tokens": rng.IntN(4000), "cache_read_input_tokens": 20000 + rng.IntN(80000), "output_tokens": 50 + rng.IntN(900), "service_tier": "standard"},
		}, map[string]any{"requestId": fmt.Sprintf("req_011CX%016d", n)})
	}
	use := func(name string, input map[string]any) string {
		tool++
		id := fmt.Sprintf("toolu_01%018d", tool)
		assistant(map[string]any{"type": "tool_use", "id": id, "name": name, "input": input})
		return id
	}
	result := func(id, text string, isErr bool, tur any) {
		b := map[string]any{"tool_use_id": id, "type": "tool_result", "content": text}
		if isErr {
			b["is_error"] = true
		}
		emit("user", map[string]any{"role": "user", "content": []any{b}}, map[string]any{"toolUseResult": tur})
	}
	words := strings.Fields("the ledger parser facts file trailing newline index recall query token budget task graph ready blocked merge driver review proposal")
	sentence := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	for round := 0; n < events && buf.Len() < size; round++ {
		file := fmt.Sprintf("/home/dev/app/internal/pkg%d/file%d.go", round%37, round%11)
		emit("user", map[string]any{"role": "user", "content": "Please " + sentence(12+rng.IntN(30)) + "."}, nil)
		id := use("Read", map[string]any{"file_path": file})
		var src strings.Builder
		for l := 1; l <= 60+rng.IntN(120); l++ {
			fmt.Fprintf(&src, "%6d\u2192\t%s\n", l, sentence(3+rng.IntN(9)))
		}
		result(id, src.String(), false, map[string]any{"type": "text", "file": map[string]any{"filePath": file, "content": src.String()}})
		id = use("Grep", map[string]any{"pattern": "func " + words[rng.IntN(len(words))], "output_mode": "content", "-n": true})
		result(id, fmt.Sprintf("%s:%d:func %s() {\n", file, rng.IntN(200), words[rng.IntN(len(words))]), false, map[string]any{"mode": "content", "numFiles": 1})
		id = use("Edit", map[string]any{"file_path": file, "old_string": sentence(6), "new_string": sentence(7), "replace_all": false})
		result(id, "The file "+file+" has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n"+sentence(40), false,
			map[string]any{"filePath": file, "oldString": sentence(6), "newString": sentence(7)})
		id = use("Bash", map[string]any{"command": "go test ./...", "description": "Run the tests"})
		if round%3 == 0 {
			out := fmt.Sprintf("Exit code 1\n--- FAIL: TestRound%d (0.00s)\n    file_test.go:%d: %s\nFAIL\nFAIL\tgithub.com/acme/app/internal/pkg%d\t0.0%ds\nFAIL", round, rng.IntN(300), sentence(8), round%37, rng.IntN(9))
			result(id, out, true, "Error: "+out)
		} else {
			out := fmt.Sprintf("ok  \tgithub.com/acme/app/internal/pkg%d\t0.0%ds\nok  \tgithub.com/acme/app/internal/tasks\t0.031s", round%37, rng.IntN(9))
			result(id, out, false, map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false})
		}
		assistant(map[string]any{"type": "thinking", "thinking": sentence(60), "signature": "EqQBCkYIBxgCKkD3" + strings.Repeat("x", 200)})
		assistant(map[string]any{"type": "text", "text": "Done: " + sentence(25) + "."})
	}
	return buf.Bytes()
}

func benchRead(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := Parse(context.Background(), bytes.NewReader(data), "bench.jsonl", RuntimeClaudeCode, Options{})
		if err != nil || len(s.Commands) == 0 {
			b.Fatalf("Parse: %v, %d commands", err, len(s.Commands))
		}
	}
}

// BenchmarkReadClaude10MB: flush reads one such transcript; with a whole
// process budget of 500 ms, reading must stay well under 300 ms.
func BenchmarkReadClaude10MB(b *testing.B) { benchRead(b, genClaude(1<<30, 10<<20)) }

func BenchmarkReadClaude1kEvents(b *testing.B)  { benchRead(b, genClaude(1_000, 1<<40)) }
func BenchmarkReadClaude10kEvents(b *testing.B) { benchRead(b, genClaude(10_000, 1<<40)) }

// TestGenerateTranscript writes the 10 MB transcript of
// BenchmarkReadClaude10MB to $MEMCTL_GEN_TRANSCRIPT, with the session's
// cwd set to $MEMCTL_GEN_CWD when given, for timing memctl flush as a
// whole process (docs/development.md); it does nothing when the variable
// is unset.
func TestGenerateTranscript(t *testing.T) {
	path := os.Getenv("MEMCTL_GEN_TRANSCRIPT")
	if path == "" {
		return
	}
	data := genClaude(1<<30, 10<<20)
	if cwd := os.Getenv("MEMCTL_GEN_CWD"); cwd != "" {
		data = bytes.ReplaceAll(data, []byte(`"/home/dev/app`), []byte(strconv.Quote(cwd)[:len(strconv.Quote(cwd))-1]))
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestGenClaudeReads keeps the benchmark's transcript honest: it is read
// without a skipped line and yields what its rounds hold.
func TestGenClaudeReads(t *testing.T) {
	t.Parallel()
	data := genClaude(1_000, 1<<40)
	s, err := Parse(context.Background(), bytes.NewReader(data), "gen.jsonl", RuntimeClaudeCode, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Commands) == 0 || len(s.FilesChanged) == 0 || len(s.Tests) == 0 || len(s.Errors) == 0 || s.FirstUserText == "" || s.LastAssistantText == "" {
		t.Errorf("generated transcript read as %d commands, %d files, %d tests, %d errors, intent %q, result %q",
			len(s.Commands), len(s.FilesChanged), len(s.Tests), len(s.Errors), s.FirstUserText, s.LastAssistantText)
	}
}

// genCodex writes a Codex rollout of realistic shapes until it has size
// bytes: per round a request with its event mirror, a turn context, an
// encrypted reasoning item, a file read through exec_command, an
// apply_patch with its patch_apply_end, a go test (failing one round in
// three), the answer and a token count.
func genCodex(size int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	t0 := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	n := 0
	line := func(typ string, payload map[string]any) {
		_ = enc.Encode(map[string]any{"timestamp": t0.Add(time.Duration(n) * time.Second).Format(time.RFC3339Nano), "type": typ, "payload": payload})
		n++
	}
	words := strings.Fields("export csv rows trailing newline split header quote field writer reader buffer flush")
	sentence := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	line("session_meta", map[string]any{"id": "019ab3c4-7d2e-7f10-8a4b-3c5d6e7f8091", "timestamp": t0.Format(time.RFC3339Nano), "cwd": "/home/dev/app",
		"originator": "codex_cli_rs", "cli_version": "0.128.0", "source": "cli", "model_provider": "openai",
		"base_instructions": map[string]any{"text": strings.Repeat(sentence(20)+"\n", 100)}})
	call := 0
	for round := 0; buf.Len() < size; round++ {
		req := "Please " + sentence(20)
		line("turn_context", map[string]any{"cwd": "/home/dev/app", "model": "gpt-5.5", "approval_policy": "on-request", "sandbox_policy": map[string]any{"type": "workspace-write"}, "effort": "high", "summary": "auto"})
		line("response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": req}}})
		line("event_msg", map[string]any{"type": "user_message", "message": req, "images": []any{}})
		line("response_item", map[string]any{"type": "reasoning", "summary": []any{}, "content": nil, "encrypted_content": "gAAAAAB" + strings.Repeat("Zm9vYmFy", 300)})
		call++
		file := fmt.Sprintf("internal/pkg%d/file%d.go", round%29, round%7)
		line("response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": `{"cmd":"sed -n '1,200p' ` + file + `","workdir":"/home/dev/app"}`, "call_id": fmt.Sprintf("call_%d", call)})
		var src strings.Builder
		for l := 0; l < 80+rng.IntN(120); l++ {
			src.WriteString(sentence(3+rng.IntN(8)) + "\n")
		}
		line("response_item", map[string]any{"type": "function_call_output", "call_id": fmt.Sprintf("call_%d", call),
			"output": "Chunk ID: 4f1a2b\nWall time: 0.0100 seconds\nProcess exited with code 0\nOriginal token count: 900\nOutput:\n" + src.String()})
		call++
		patch := "*** Begin Patch\n*** Update File: " + file + "\n@@\n-" + sentence(6) + "\n+" + sentence(7) + "\n*** End Patch\n"
		line("response_item", map[string]any{"type": "custom_tool_call", "status": "completed", "call_id": fmt.Sprintf("call_%d", call), "name": "apply_patch", "input": patch})
		line("event_msg", map[string]any{"type": "patch_apply_end", "call_id": fmt.Sprintf("call_%d", call), "stdout": "Success. Updated the following files:\nM " + file + "\n", "stderr": "", "success": true,
			"changes": map[string]any{"/home/dev/app/" + file: map[string]any{"type": "update", "unified_diff": patch, "move_path": nil}}, "status": "completed"})
		line("response_item", map[string]any{"type": "custom_tool_call_output", "call_id": fmt.Sprintf("call_%d", call), "output": `{"output":"Success. Updated the following files:\nM ` + file + `\n","metadata":{"exit_code":0,"duration_seconds":0.0}}`})
		call++
		line("response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": `{"cmd":"go test ./...","workdir":"/home/dev/app"}`, "call_id": fmt.Sprintf("call_%d", call)})
		exit, out := 0, fmt.Sprintf("ok  \tgithub.com/acme/app/internal/pkg%d\t0.012s\n", round%29)
		if round%3 == 0 {
			exit, out = 1, fmt.Sprintf("--- FAIL: TestRound%d (0.00s)\n    x_test.go:%d: %s\nFAIL\nFAIL\tgithub.com/acme/app/internal/pkg%d\t0.014s\n", round, rng.IntN(300), sentence(8), round%29)
		}
		line("response_item", map[string]any{"type": "function_call_output", "call_id": fmt.Sprintf("call_%d", call),
			"output": fmt.Sprintf("Chunk ID: 7e2c11\nWall time: 2.1000 seconds\nProcess exited with code %d\nOriginal token count: 40\nOutput:\n%s", exit, out)})
		answer := "Done: " + sentence(30)
		line("response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": answer}}, "phase": "final_answer"})
		line("event_msg", map[string]any{"type": "agent_message", "message": answer, "phase": "final_answer"})
		line("event_msg", map[string]any{"type": "token_count", "info": map[string]any{"total_token_usage": map[string]any{"input_tokens": 40210 + round, "output_tokens": 2210}}, "rate_limits": nil})
	}
	return buf.Bytes()
}

func BenchmarkReadCodex10MB(b *testing.B) {
	data := genCodex(10 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := Parse(context.Background(), bytes.NewReader(data), "rollout.jsonl", RuntimeCodex, Options{})
		if err != nil || len(s.Commands) == 0 {
			b.Fatalf("Parse: %v, %d commands", err, len(s.Commands))
		}
	}
}
