// Package config finds the memctl workspace and loads .ledger/config.toml.
//
// The configuration is optional: a workspace without config.toml runs on
// the defaults below. Load always returns a Config with every default
// filled in, so callers never check for zero values.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/memctl/memctl/internal/secrets"
)

// Default budgets. A ledger is read into every session's context, so it is
// kept small on purpose: 800 lines is roughly 10k tokens.
// The byte budgets bound the same cost where lines do not (one line can
// be a megabyte): 64 KiB is about 16k tokens, 800 lines of 80 bytes; a
// file gets a quarter of it, as it gets a quarter of the lines. A single
// fact is at most 1,000 characters, a long paragraph: anything longer is
// a document, which belongs in the repository, not in every session.
const (
	DefaultMaxLines      = 800
	DefaultMaxFileLines  = 200
	DefaultMaxTotalBytes = 64 << 10
	DefaultMaxFileBytes  = 16 << 10
	DefaultMaxFactChars  = 1000
	DefaultEmbed         = "builtin"
	// DefaultLockTimeout is how long a write waits for another memctl
	// process to let go of the workspace lock: long enough for any other
	// write (they take milliseconds; a whole merge of a big issues file
	// takes a second or two), short enough that an agent waiting on a
	// stuck process hears about it.
	DefaultLockTimeout = 10 * time.Second
)

// Config is the content of .ledger/config.toml with defaults applied.
type Config struct {
	Facts  Facts  `toml:"facts"`
	Tasks  Tasks  `toml:"tasks"`
	Runs   Runs   `toml:"runs"`
	Index  Layer  `toml:"index"`
	Embed  Embed  `toml:"embed"`
	Prime  Prime  `toml:"prime"`
	Review Review `toml:"review"`
	Recall Recall `toml:"recall"`
	Lock   Lock   `toml:"lock"`
	// Secrets is the write gate's policy (docs/secrets.md).
	Secrets Secrets `toml:"secrets"`
}

// Secrets configures the write gate: what it does with a secret, and the
// findings it lets through.
type Secrets struct {
	// Mode is "refuse" (the default: a write holding a secret is
	// refused) or "redact" (it is written with the secret replaced by
	// [REDACTED:<rule id>]).
	Mode string `toml:"mode"`
	// Allow lists the findings the gate and memctl check let through
	// ([[secrets.allow]]).
	Allow []SecretAllow `toml:"allow"`
	// Policy is Mode and Allow for the gate, filled in by Parse.
	Policy secrets.Policy `toml:"-"`
}

// SecretAllow is one [[secrets.allow]] entry: a fingerprint memctl
// printed (<rule id>:<12 hex digits>), or a rule id, or both, and why.
type SecretAllow struct {
	Rule        string `toml:"rule"`
	Fingerprint string `toml:"fingerprint"`
	Reason      string `toml:"reason"`
}

// Lock configures the workspace write lock.
type Lock struct {
	// Timeout is how long a write waits for the lock, a Go duration
	// ("10s", "1m30s"); MEMCTL_LOCK_TIMEOUT overrides it. Kept as text so
	// that a bare number (TOML's integer, nanoseconds to BurntSushi/toml)
	// is refused, not read as 10 ns.
	Timeout string `toml:"timeout"`
	// Wait is Timeout parsed, filled in by Parse.
	Wait time.Duration `toml:"-"`
}

// Recall tunes recall's ranking.
type Recall struct {
	// Weights weigh the signals of a hybrid search.
	Weights RecallWeights `toml:"weights"`
	// RRFK, BM25Weight and DenseWeight set the reciprocal rank fusion
	// recall no longer does: read only to say so (see obsoleteRecall).
	RRFK        *float64 `toml:"rrf_k"`
	BM25Weight  *float64 `toml:"bm25_weight"`
	DenseWeight *float64 `toml:"dense_weight"`
	// RunHalfLifeDays is the half-life of runs' recency decay.
	RunHalfLifeDays float64 `toml:"run_half_life_days"`
	// Scopes name lists of path prefixes for recall --scope.
	Scopes map[string][]string `toml:"scopes"`
}

// RecallWeights weigh the three signals of a hybrid search, each scaled to
// [0, 1] over the candidates: BM25 over words, the dense cosine, and the
// word-level match of the query's words.
type RecallWeights struct {
	BM25  float64 `toml:"bm25"`
	Dense float64 `toml:"dense"`
	Match float64 `toml:"match"`
}

// obsolete warns of the reciprocal rank fusion's settings: recall fuses
// scores now, and they do nothing. The values memctl init wrote before
// (rrf_k 60, both weights 1) pass in silence: nobody chose them.
func (r *Recall) obsolete(name string) []Warning {
	var out []Warning
	for _, o := range []struct {
		key  string
		v    *float64
		init float64
	}{{"recall.rrf_k", r.RRFK, 60}, {"recall.bm25_weight", r.BM25Weight, 1}, {"recall.dense_weight", r.DenseWeight, 1}} {
		if o.v != nil && *o.v != o.init {
			out = append(out, Warning{File: name, Key: o.key, Message: "no longer used: recall fuses scores, not ranks; set [recall.weights] bm25, dense and match instead (memctl help recall)"})
		}
	}
	return out
}

// The scopes recall --scope knows without [recall.scopes], which may not
// define them.
const (
	ScopeTeam     = "team"     // what the repository shares
	ScopePersonal = "personal" // the person's own preferences
)

var scopeMeaning = map[string]string{
	ScopeTeam:     "what the repository shares",
	ScopePersonal: "your personal preferences",
}

// reservedScopes drops, with a warning each, the scopes of [recall.scopes]
// named team or personal: recall --scope means something else by them. A
// warning, not an error: a config that named a scope so before they were
// reserved still loads.
func (r *Recall) reservedScopes(name string) []Warning {
	var out []Warning
	for _, reserved := range []string{ScopeTeam, ScopePersonal} {
		if _, ok := r.Scopes[reserved]; ok {
			delete(r.Scopes, reserved)
			out = append(out, Warning{File: name, Key: "recall.scopes." + reserved, Message: fmt.Sprintf("%q is reserved: recall --scope %s means %s, and memctl ignores this entry; give the scope another name", reserved, reserved, scopeMeaning[reserved])})
		}
	}
	return out
}

// Review configures the proposal review.
type Review struct {
	// StaleDays: pending proposals older than this are reported by check.
	StaleDays int `toml:"stale_days"`
}

// Write policies of a facts category ([facts.policy]).
const (
	PolicyReview    = "review"    // proposals wait for a human (default)
	PolicyReadonly  = "readonly"  // proposals are refused; only humans edit the file
	PolicyAppend    = "append"    // additions apply at once; updates and removals wait
	PolicyReadwrite = "readwrite" // every proposal applies at once
)

// PolicyFor returns the write policy of a category.
func (f Facts) PolicyFor(category string) string {
	if p, ok := f.Policy[category]; ok {
		return p
	}
	return PolicyReview
}

// Layer is the switch every layer has, so a team can adopt memctl one
// layer at a time.
type Layer struct {
	Enabled bool `toml:"enabled"`
}

// Prime configures memctl prime, the session-start context pack.
type Prime struct {
	Enabled bool `toml:"enabled"`
	// BudgetTokens caps the pack, in prime's token estimate (a token per
	// 4 bytes of each printed line); memctl prime --budget-tokens
	// overrides it.
	BudgetTokens int `toml:"budget_tokens"`
}

// DefaultPrimeBudget is prime's default token budget: about 8 KB of text,
// under the 10,000 characters a Claude Code hook may add.
const DefaultPrimeBudget = 2000

// Runs configures the run records in .ledger/runs.
type Runs struct {
	Enabled bool `toml:"enabled"`
	// KeepDays: memctl gc deletes run records older than this many days
	// that nothing cites; 0 keeps them all.
	KeepDays int `toml:"keep_days"`
	// Consolidate: memctl flush runs consolidation (memctl consolidate)
	// at the end of a session. Off by default: it files proposals that
	// someone has to review.
	Consolidate bool `toml:"consolidate"`
}

// DefaultKeepDays is how long run records are kept by default.
const DefaultKeepDays = 180

// Facts configures the long-term, human-verified layer.
type Facts struct {
	Enabled bool `toml:"enabled"`
	// MaxLines is the line budget of all facts files together.
	MaxLines int `toml:"max_lines"`
	// MaxFileLines is the line budget of each facts file.
	MaxFileLines int `toml:"max_file_lines"`
	// MaxTotalBytes and MaxFileBytes are the byte budgets beside the line
	// budgets, for all files together and for each file.
	MaxTotalBytes int `toml:"max_total_bytes"`
	MaxFileBytes  int `toml:"max_file_bytes"`
	// MaxFactChars is the longest fact, in characters, that propose and
	// an edited approval accept.
	MaxFactChars int `toml:"max_fact_chars"`
	// Policy maps a category to its write policy; unlisted categories use
	// PolicyReview.
	Policy map[string]string `toml:"policy"`
}

// Tasks configures the Beads-compatible task graph.
type Tasks struct {
	Enabled bool `toml:"enabled"`
	// Prefix starts every new task id: <prefix>-<hash>.
	Prefix string `toml:"prefix"`
}

// Embed chooses the embedder behind recall.
type Embed struct {
	// Provider is builtin (offline, the default), ollama, openai (any
	// OpenAI-compatible server) or none (words only).
	Provider string `toml:"provider"`
	// Model, URL: the HTTP providers' model and server (empty URL: the
	// provider's default address).
	Model string `toml:"model"`
	URL   string `toml:"url"`
	// APIKeyEnv names the environment variable holding the API key; the
	// key itself is never written in a file.
	APIKeyEnv string `toml:"api_key_env"`
	// Batch texts per request, TimeoutSeconds per request, Retries of a
	// failed request.
	Batch          int     `toml:"batch"`
	TimeoutSeconds float64 `toml:"timeout_seconds"`
	Retries        int     `toml:"retries"`
}

// Default returns the configuration used when config.toml is missing or
// leaves a key out. prefix is the task-id prefix.
func Default(prefix string) Config {
	return Config{
		Facts: Facts{Enabled: true, MaxLines: DefaultMaxLines, MaxFileLines: DefaultMaxFileLines,
			MaxTotalBytes: DefaultMaxTotalBytes, MaxFileBytes: DefaultMaxFileBytes, MaxFactChars: DefaultMaxFactChars, Policy: map[string]string{}},
		Tasks:   Tasks{Enabled: true, Prefix: prefix},
		Runs:    Runs{Enabled: true, KeepDays: DefaultKeepDays},
		Index:   Layer{Enabled: true},
		Embed:   Embed{Provider: DefaultEmbed, APIKeyEnv: "OPENAI_API_KEY", Batch: 64, TimeoutSeconds: 30, Retries: 2},
		Prime:   Prime{Enabled: true, BudgetTokens: DefaultPrimeBudget},
		Review:  Review{StaleDays: 14},
		Recall:  Recall{Weights: RecallWeights{BM25: 0.2, Dense: 0.1, Match: 0.7}, RunHalfLifeDays: 30, Scopes: map[string][]string{}},
		Lock:    Lock{Timeout: DefaultLockTimeout.String(), Wait: DefaultLockTimeout},
		Secrets: Secrets{Mode: "refuse"},
	}
}

// Error is a problem with a configuration file. Line is 0 when no line of
// the file sets the key (a default that another key makes wrong, say).
type Error struct {
	File    string
	Line    int
	Key     string
	Message string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		fmt.Fprintf(&b, "key %q: ", e.Key)
	}
	b.WriteString(e.Message)
	return b.String()
}

// Warning is a problem that does not stop memctl, such as an unknown key.
type Warning struct {
	File    string
	Key     string
	Message string
}

func (w Warning) String() string {
	if w.Key != "" {
		return fmt.Sprintf("%s: key %q: %s", w.File, w.Key, w.Message)
	}
	return fmt.Sprintf("%s: %s", w.File, w.Message)
}

// Load reads the configuration at path (named name in messages) over the
// defaults in base. A missing file gives base unchanged. Unknown keys come
// back as warnings; syntax errors, wrong types and values out of range as an
// *Error naming the line where there is one.
func Load(path, name string, base Config) (Config, []Warning, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return base, nil, nil
	}
	if err != nil {
		return base, nil, fmt.Errorf("read %s: %w", name, err)
	}
	return Parse(data, name, base)
}

// Parse decodes config TOML over base; see Load.
func Parse(data []byte, name string, base Config) (Config, []Warning, error) {
	cfg := base.clone()
	md, err := decode(data, name, &cfg)
	if err != nil {
		return base, nil, err
	}
	var warns []Warning
	undecoded := md.Undecoded()
	reported := make(map[string]bool, len(undecoded))
	for _, k := range undecoded {
		key := k.String()
		if len(k) > 1 && reported[k[:len(k)-1].String()] {
			reported[key] = true // inside an unknown table: the table is reported
			continue
		}
		reported[key] = true
		msg := "unknown key; memctl ignores it"
		if s := suggest(key); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		warns = append(warns, Warning{File: name, Key: key, Message: msg})
	}
	warns = append(warns, cfg.Recall.obsolete(name)...)
	warns = append(warns, cfg.Recall.reservedScopes(name)...)
	sort.Slice(warns, func(i, j int) bool { return warns[i].Key < warns[j].Key })
	if err := cfg.validate(name); err != nil {
		return base, warns, withKeyLine(err, data)
	}
	if err := cfg.Secrets.parse(name, data); err != nil {
		return base, warns, err
	}
	return cfg, warns, nil
}

// clone is a copy of c that shares no map or slice with it: the decoder
// writes into maps in place, and base must not change (a failed parse
// returns it).
func (c Config) clone() Config {
	c.Facts.Policy = maps.Clone(c.Facts.Policy)
	c.Secrets.Allow = slices.Clone(c.Secrets.Allow)
	c.Secrets.Policy.Allow = slices.Clone(c.Secrets.Policy.Allow)
	if c.Recall.Scopes != nil {
		scopes := make(map[string][]string, len(c.Recall.Scopes))
		for k, v := range c.Recall.Scopes {
			scopes[k] = slices.Clone(v)
		}
		c.Recall.Scopes = scopes
	}
	return c
}

// decode decodes TOML into v; a syntax error or a value of the wrong type
// becomes an *Error naming the file, and the line where there is one.
func decode(data []byte, name string, v any) (toml.MetaData, error) {
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(v)
	if err != nil {
		var e *Error
		var pe toml.ParseError
		if errors.As(err, &pe) {
			e = &Error{File: name, Line: pe.Position.Line, Key: pe.LastKey, Message: strings.TrimPrefix(pe.Message, "toml: ")}
			if e.Line == 0 && pe.Position.Start > 0 {
				// Some lexer errors (a newline in a quoted key) come with
				// the offset only.
				e.Line = bytes.Count(data[:min(pe.Position.Start, len(data))], []byte{'\n'}) + 1
			}
		} else {
			e = decodeError(name, err)
		}
		// The decoder puts an error found at the end of the last line
		// (a table header cut short: "[") on the line after it.
		if n := max(lineCount(data), 1); e.Line > n {
			e.Line = n
		}
		return md, e
	}
	return md, nil
}

// lineCount counts lines as wc -l does, plus a last line without newline.
func lineCount(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// decodeMessage matches BurntSushi/toml's errors for values of the wrong
// type, which are not ParseErrors but carry the line in their text.
var decodeMessage = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^toml: (?:line (\d+) )?\(last key "([^"]*)"\): (.*)$`)
})

func decodeError(name string, err error) *Error {
	m := decodeMessage().FindStringSubmatch(err.Error())
	if m == nil {
		return &Error{File: name, Message: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	line, _ := strconv.Atoi(m[1])
	return &Error{File: name, Line: line, Key: m[2], Message: m[3]}
}

func (c *Config) validate(name string) error {
	if c.Facts.MaxLines <= 0 {
		return &Error{File: name, Key: "facts.max_lines", Message: fmt.Sprintf("must be a positive number of lines, not %d", c.Facts.MaxLines)}
	}
	if c.Facts.MaxFileLines <= 0 {
		return &Error{File: name, Key: "facts.max_file_lines", Message: fmt.Sprintf("must be a positive number of lines, not %d", c.Facts.MaxFileLines)}
	}
	for _, k := range []struct {
		key string
		v   int
	}{{"facts.max_total_bytes", c.Facts.MaxTotalBytes}, {"facts.max_file_bytes", c.Facts.MaxFileBytes}, {"facts.max_fact_chars", c.Facts.MaxFactChars}} {
		if k.v <= 0 {
			return &Error{File: name, Key: k.key, Message: fmt.Sprintf("must be a positive number, not %d", k.v)}
		}
	}
	if !ValidPrefix(c.Tasks.Prefix) {
		return &Error{File: name, Key: "tasks.prefix", Message: fmt.Sprintf("%q is not a task-id prefix: use lower-case letters, digits and '-', starting with a letter or digit", c.Tasks.Prefix)}
	}
	for cat, p := range c.Facts.Policy {
		switch p {
		case PolicyReview, PolicyReadonly, PolicyAppend, PolicyReadwrite:
		default:
			return &Error{File: name, Key: "facts.policy." + cat, Message: fmt.Sprintf("unknown policy %q: use review, readonly, append or readwrite", p)}
		}
	}
	if c.Review.StaleDays < 0 {
		return &Error{File: name, Key: "review.stale_days", Message: fmt.Sprintf("must be 0 (never stale) or more, not %d", c.Review.StaleDays)}
	}
	if c.Prime.BudgetTokens <= 0 {
		return &Error{File: name, Key: "prime.budget_tokens", Message: fmt.Sprintf("must be a positive number of tokens, not %d", c.Prime.BudgetTokens)}
	}
	if c.Runs.KeepDays < 0 {
		return &Error{File: name, Key: "runs.keep_days", Message: fmt.Sprintf("must be 0 (keep every run) or more days, not %d", c.Runs.KeepDays)}
	}
	if err := c.Embed.validate(name); err != nil {
		return err
	}
	w := c.Recall.Weights
	for _, k := range []struct {
		key string
		v   float64
	}{{"bm25", w.BM25}, {"dense", w.Dense}, {"match", w.Match}} {
		if !(k.v >= 0) || math.IsInf(k.v, 0) {
			return &Error{File: name, Key: "recall.weights." + k.key, Message: fmt.Sprintf("must be a number of 0 or more, not %g", k.v)}
		}
	}
	if w.BM25+w.Dense+w.Match == 0 {
		return &Error{File: name, Key: "recall.weights", Message: "bm25, dense and match are all 0: give at least one a weight above 0"}
	}
	if !(c.Recall.RunHalfLifeDays > 0) { // NaN too
		return &Error{File: name, Key: "recall.run_half_life_days", Message: fmt.Sprintf("must be a positive number of days (inf: runs never decay), not %g", c.Recall.RunHalfLifeDays)}
	}

	return c.Lock.parse(name)
}

// parse fills in Wait from Timeout.
func (l *Lock) parse(name string) error {
	d, err := ParseLockTimeout(l.Timeout)
	if err != nil {
		return &Error{File: name, Key: "lock.timeout", Message: err.Error()}
	}
	l.Wait = d
	return nil
}

// ParseLockTimeout reads a lock timeout: a Go duration, 0 or more ("0s"
// gives up at once).
func ParseLockTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a duration: write one such as \"10s\" or \"1m30s\"", s)
	case d < 0:
		return 0, fmt.Errorf("%q is negative: write 0s (give up at once) or more", s)
	}
	return d, nil
}

func (e *Embed) validate(name string) error {
	switch e.Provider {
	case "builtin", "ollama", "openai", "none":
	default:
		return &Error{File: name, Key: "embed.provider", Message: fmt.Sprintf("unknown provider %q: use \"builtin\", \"ollama\", \"openai\" or \"none\"", e.Provider)}
	}
	switch {
	case e.Batch < 1:
		return &Error{File: name, Key: "embed.batch", Message: fmt.Sprintf("must be at least 1, not %d", e.Batch)}
	case e.TimeoutSeconds <= 0:
		return &Error{File: name, Key: "embed.timeout_seconds", Message: fmt.Sprintf("must be positive, not %g", e.TimeoutSeconds)}
	case e.Retries < 0:
		return &Error{File: name, Key: "embed.retries", Message: fmt.Sprintf("must be 0 or more, not %d", e.Retries)}
	case (e.Provider == "ollama" || e.Provider == "openai") && e.Model == "":
		return &Error{File: name, Key: "embed.model", Message: fmt.Sprintf("provider %q needs a model, e.g. model = \"nomic-embed-text\"", e.Provider)}
	}
	return nil
}

// HomeRel writes a path under home as ~/…, so that output names the
// personal files the same way on every machine; other paths (and any path
// when home is "") are returned as they are, slash-separated.
func HomeRel(path, home string) string {
	if home != "" && filepath.IsAbs(path) {
		if rel, err := filepath.Rel(home, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(path)
}

// UserConfigPath is the user's own config file:
// $XDG_CONFIG_HOME/memctl/config.toml, else ~/.config/memctl/config.toml;
// "" when neither can be named. getenv reads the environment.
func UserConfigPath(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "memctl", "config.toml")
}

// UserPreferencesPath is the user's personal preferences file, next to
// their config file: $XDG_CONFIG_HOME/memctl/preferences.md, else
// ~/.config/memctl/preferences.md; "" when neither can be named.
func UserPreferencesPath(getenv func(string) string) string {
	path := UserConfigPath(getenv)
	if path == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(path), "preferences.md")
}

// LoadUser reads the [embed] table of a user's own config file
// ($XDG_CONFIG_HOME/memctl/config.toml) over base: an embedding endpoint
// is a personal setting. A missing file gives base; other tables are
// reported as warnings and ignored.
func LoadUser(path string, base Embed) (Embed, []Warning, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return base, nil, nil
	}
	if err != nil {
		return base, nil, fmt.Errorf("read %s: %w", path, err)
	}
	var u struct {
		Embed Embed `toml:"embed"`
	}
	u.Embed = base
	md, err := decode(data, path, &u)
	if err != nil {
		return base, nil, err
	}
	var warns []Warning
	for _, k := range md.Undecoded() {
		switch {
		case k[0] == "embed":
			warns = append(warns, Warning{File: path, Key: k.String(), Message: "unknown key; memctl ignores it"})
		case len(k) == 1: // a table's own keys are covered by this warning
			warns = append(warns, Warning{File: path, Key: k.String(), Message: "only [embed] is read from the user config; memctl ignores it"})
		}
	}
	if err := u.Embed.validate(path); err != nil {
		return base, warns, withKeyLine(err, data)
	}
	return u.Embed, warns, nil
}

// knownKeys lists every key Config reads, for suggestions on typos.
func knownKeys() []string {
	return []string{
		"facts", "facts.enabled", "facts.max_lines", "facts.max_file_lines",
		"tasks", "tasks.enabled", "tasks.prefix",
		"runs", "runs.enabled", "runs.keep_days", "index", "index.enabled",
		"embed", "embed.provider", "embed.model", "embed.url", "embed.api_key_env", "embed.batch",
		"embed.timeout_seconds", "embed.retries", "prime", "prime.enabled", "prime.budget_tokens",
		"facts.policy", "review", "review.stale_days",
		"lock", "lock.timeout", "secrets", "secrets.mode", "secrets.allow",
		"secrets.allow.rule", "secrets.allow.fingerprint", "secrets.allow.reason",
		"recall", "recall.weights", "recall.weights.bm25", "recall.weights.dense", "recall.weights.match",
		"recall.rrf_k", "recall.bm25_weight", "recall.dense_weight", "recall.run_half_life_days", "recall.scopes",
	}
}

// obsoleteKeys are known keys that no longer do anything (see
// Recall.obsolete).
var obsoleteKeys = map[string]bool{"recall.rrf_k": true, "recall.bm25_weight": true, "recall.dense_weight": true}

// suggest returns the known key closest to key if it is a likely typo.
func suggest(key string) string { return Closest(key, knownKeys(), 2) }

// Closest returns the name in known nearest to name by edit distance
// (Levenshtein, in bytes: the names memctl suggests are ASCII), when it is
// at most maxEdits edits away: the likely meaning of a mistyped key or
// category. Ties go to the first in known; "" when none is that close.
func Closest(name string, known []string, maxEdits int) string {
	best, bestD := "", maxEdits+1
	for _, k := range known {
		if d := distance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
