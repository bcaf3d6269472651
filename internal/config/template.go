package config

import (
	"fmt"
	"strconv"
)

// Template returns the config.toml that `memctl init` writes: every key,
// set to its default and explained, so a team can see what it may change.
func Template(prefix string) []byte {
	d := Default(prefix)
	return fmt.Appendf(nil, `# memctl configuration. Every key is written out with its default value;
# change what your team needs and commit the file. Every key is explained
# by "memctl help config". Each layer can be switched off on its own: its
# commands then say so on stderr and return empty results.

[facts]
# Long-term, human-verified facts in .ledger/facts/*.md.
enabled = %t
# Line budget for all facts files together; "memctl check" fails above it.
# Facts are read into every agent session, so keep them short.
max_lines = %d
# Line budget for any one facts file.
max_file_lines = %d
# Byte budgets beside the line budgets, for all facts files together and
# for any one file: a single line can be long. 64 KiB is about 16k tokens.
max_total_bytes = %d
max_file_bytes = %d
# The longest fact, in characters, that "memctl propose" and an edited
# approval accept. Longer text is a document: keep it in the repository
# and state the fact that points to it.
max_fact_chars = %d

[facts.policy]
# How agents' proposals reach a facts file, per category (file name):
#   review    - they wait for a human: memctl review (the default)
#   readonly  - they are refused; only humans edit the file
#   append    - additions apply at once; updates and removals wait
#   readwrite - everything applies at once
# Every change is recorded in .ledger/proposals/ whatever the policy.
# Example: pitfalls = "append"

[tasks]
# The Beads-compatible task graph in .beads/issues.jsonl.
enabled = %t
# New task ids are <prefix>-<hash>, as in Beads.
prefix = %s

[runs]
# Run records and digests in .ledger/runs/.
enabled = %t
# memctl gc deletes run records older than this many days unless a fact,
# proposal or playbook cites them (0: keep every run).
keep_days = %d
# memctl flush files proposals at session end for what recurs across runs
# (a gotcha, an error or a failing file in 3 or more runs), as memctl
# consolidate does; they wait for review.
consolidate = %t

[index]
# The local recall index (a cache under .git/memctl/, never committed).
enabled = %t

[embed]
# Embedder for recall: "builtin" works offline with no download; "none"
# searches words only; "ollama" (POST /api/embed) and "openai" (POST
# /v1/embeddings, any compatible server) are opt-in and need a model.
# An endpoint is usually personal: put it in the [embed] table of
# $XDG_CONFIG_HOME/memctl/config.toml instead, which wins over this one.
provider = %s
model = %s
# Empty: the provider's default address.
url = %s
# The environment variable holding the API key (never the key itself).
api_key_env = %s
batch = %d
timeout_seconds = %.1f
retries = %d

[recall]
# Run digests fade with age: their score halves every this many days.
run_half_life_days = %.1f

[recall.weights]
# Ranking of "memctl recall": each signal is scaled to [0, 1] over the
# candidates and weighed: BM25 over words, the cosine of dense vectors, and
# the match of the query's words with the document's (word vectors).
bm25 = %g
dense = %g
match = %g

[recall.scopes]
# Named path prefixes for "memctl recall --scope NAME".
# Example: backend = ["internal/", "cmd/server/"]

[prime]
# Session-start context from "memctl prime".
enabled = %t
# The pack's size in tokens, estimated as one token per 4 bytes of each
# line; past it, the least important lines are left out and counted.
budget_tokens = %d

[review]
# memctl check warns about pending proposals older than this many days
# (0: never).
stale_days = %d

[lock]
# How long a write waits for another memctl process to finish writing
# before it gives up with exit 5 (a Go duration: "10s", "1m30s"; "0s"
# gives up at once). MEMCTL_LOCK_TIMEOUT overrides it.
timeout = %s

[secrets]
# What a write does with text that looks like a credential: "refuse" it,
# or "redact" it (store [REDACTED:<rule>] in its place and say so).
mode = %s
# Findings to let through (false positives), by the fingerprint memctl
# prints with each one, or every finding of a rule:
# [[secrets.allow]]
# fingerprint = "generic-api-key:7c1e0b9d2a44"
# rule = "generic-api-key"
# reason = "the example key of the API guide"
`, d.Facts.Enabled, d.Facts.MaxLines, d.Facts.MaxFileLines, d.Facts.MaxTotalBytes, d.Facts.MaxFileBytes, d.Facts.MaxFactChars,
		d.Tasks.Enabled, strconv.Quote(d.Tasks.Prefix),
		d.Runs.Enabled, d.Runs.KeepDays, d.Runs.Consolidate, d.Index.Enabled, strconv.Quote(d.Embed.Provider), strconv.Quote(d.Embed.Model),
		strconv.Quote(d.Embed.URL), strconv.Quote(d.Embed.APIKeyEnv), d.Embed.Batch, d.Embed.TimeoutSeconds, d.Embed.Retries,
		d.Recall.RunHalfLifeDays, d.Recall.Weights.BM25, d.Recall.Weights.Dense, d.Recall.Weights.Match,
		d.Prime.Enabled, d.Prime.BudgetTokens, d.Review.StaleDays, strconv.Quote(d.Lock.Timeout),
		strconv.Quote(d.Secrets.Mode))
}
