// Package transcript reads what an agent runtime leaves behind about a
// session, for memctl flush: the JSON a hook passes on stdin
// (ParseHookInput: Claude Code, Codex, Gemini CLI, Cursor) and the
// session's transcript (Read: Claude Code's JSONL under ~/.claude/projects,
// Codex's rollout JSONL under ~/.codex/sessions), streamed line by line
// into a Session: the files edited, the shell commands with their exit
// status and the tail of their output, the tests seen passing or failing,
// the error texts of failed tool results, the tasks claimed or closed with
// memctl or bd, the first request and the last answer.
//
// The package only reads. A Session holds raw text from the transcript,
// secrets included: whoever writes it down redacts it (secrets.Redact).
// A damaged transcript yields what could be read and a *LinesError that
// says what was skipped, for the caller to warn about.
package transcript
