package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTemplateDecodesToDefaults(t *testing.T) {
	t.Parallel()
	tmpl := Template("my-repo")
	// Decode over a zero Config: every value must come from the template.
	got, warns, err := Parse(tmpl, "config.toml", Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("template has unknown keys: %v", warns)
	}
	if want := Default("my-repo"); !reflect.DeepEqual(got, want) {
		t.Errorf("template decodes to\n%+v\nwant\n%+v", got, want)
	}
	for _, k := range knownKeys() {
		if obsoleteKeys[k] {
			continue
		}
		leaf := k[strings.LastIndex(k, ".")+1:]
		if !strings.Contains(string(tmpl), leaf) {
			t.Errorf("template does not write out %q", k)
		}
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	base := Default("x")
	t.Run("missing keys keep defaults", func(t *testing.T) {
		cfg, _, err := Parse([]byte("[facts]\nmax_lines = 300\n"), "c.toml", base)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Facts.MaxLines != 300 || cfg.Facts.MaxFileLines != DefaultMaxFileLines || !cfg.Facts.Enabled {
			t.Errorf("got %+v", cfg.Facts)
		}
	})
	t.Run("recall scopes named team or personal are dropped with a warning", func(t *testing.T) {
		for _, name := range []string{"team", "personal"} {
			cfg, warns, err := Parse([]byte("[recall.scopes]\nmine = [\"a/\"]\n"+name+" = [\"b/\"]\n"), "c.toml", base)
			if err != nil || len(warns) != 1 || warns[0].Key != "recall.scopes."+name || !strings.Contains(warns[0].Message, `"`+name+`" is reserved`) {
				t.Errorf("scope %s: warnings %v, err %v; want one warning naming the key", name, warns, err)
			}
			if _, ok := cfg.Recall.Scopes[name]; ok || len(cfg.Recall.Scopes["mine"]) != 1 {
				t.Errorf("scope %s: scopes %v, want it dropped and the others kept", name, cfg.Recall.Scopes)
			}
		}
		if _, _, err := Parse([]byte("[recall.scopes]\nteams = [\"a/\"]\n"), "c.toml", base); err != nil {
			t.Errorf("another name: %v", err)
		}
	})
	t.Run("run_half_life_days is positive: inf is, nan is not", func(t *testing.T) {
		for in, ok := range map[string]bool{"30": true, "0.5": true, "inf": true, "0": false, "-1": false, "nan": false} {
			cfg, _, err := Parse([]byte("[recall]\nrun_half_life_days = "+in+"\n"), "c.toml", base)
			var e *Error
			switch {
			case ok && err != nil:
				t.Errorf("%s: %v", in, err)
			case !ok && (!errors.As(err, &e) || e.Key != "recall.run_half_life_days"):
				t.Errorf("%s: %v (half-life %g), want an error naming the key", in, err, cfg.Recall.RunHalfLifeDays)
			}
		}
	})
	t.Run("unknown key is a warning with a suggestion", func(t *testing.T) {
		_, warns, err := Parse([]byte("[facts]\nmax_line = 3\n[extra]\nx = 1\n"), "c.toml", base)
		if err != nil {
			t.Fatal(err)
		}
		if len(warns) != 2 {
			t.Fatalf("warnings = %v", warns)
		}
		if warns[1].Key != "facts.max_line" || !strings.Contains(warns[1].Message, `"facts.max_lines"`) {
			t.Errorf("warning = %+v", warns[1])
		}
		if warns[0].Key != "extra" {
			t.Errorf("warning = %+v", warns[0])
		}
	})
	t.Run("syntax error names the line", func(t *testing.T) {
		_, _, err := Parse([]byte("[facts]\nmax_lines = 3\nmax_file_lines = = 4\n"), "c.toml", base)
		var ce *Error
		if !errors.As(err, &ce) || ce.Line != 3 || ce.File != "c.toml" {
			t.Fatalf("err = %#v", err)
		}
	})
	t.Run("wrong type names the line and key", func(t *testing.T) {
		_, _, err := Parse([]byte("[facts]\n\nmax_lines = \"many\"\n"), "c.toml", base)
		var ce *Error
		if !errors.As(err, &ce) || ce.Line != 3 || ce.Key != "facts.max_lines" || !strings.Contains(ce.Message, "incompatible types") {
			t.Fatalf("err = %#v", err)
		}
	})
	t.Run("out of range value names the line and key", func(t *testing.T) {
		_, _, err := Parse([]byte("[facts]\n\nmax_file_lines = 0\n"), "c.toml", base)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != "facts.max_file_lines" || ce.Line != 3 {
			t.Fatalf("err = %#v", err)
		}
	})
	t.Run("out of range value in every spelling of its key names its line", func(t *testing.T) {
		for _, tc := range []struct {
			toml string
			line int
		}{
			{"[facts] # budgets\nmax_lines = 3\n[review]\nstale_days = -1\n", 4},
			{"review.stale_days = -1\n", 1},
			{"[review]\n  \"stale_days\" = -1\n", 2},
			{"# [review]\n# stale_days = 3\nreview = { stale_days = -1 }\n", 3},
			{"[ review ]\nstale_days=-1\n", 2},
		} {
			_, _, err := Parse([]byte(tc.toml), "c.toml", base)
			var ce *Error
			if !errors.As(err, &ce) || ce.Key != "review.stale_days" || ce.Line != tc.line {
				t.Errorf("%q: err = %v, want line %d", tc.toml, err, tc.line)
			}
		}
	})
	t.Run("runs keep_days defaults to 180, 0 keeps all, negative names its line", func(t *testing.T) {
		cfg, _, err := Parse([]byte("[runs]\nenabled = true\n"), "c.toml", base)
		if err != nil || cfg.Runs.KeepDays != 180 {
			t.Errorf("default: %+v, %v", cfg.Runs, err)
		}
		cfg, _, err = Parse([]byte("[runs]\nkeep_days = 0\n"), "c.toml", base)
		if err != nil || cfg.Runs.KeepDays != 0 || !cfg.Runs.Enabled {
			t.Errorf("0: %+v, %v", cfg.Runs, err)
		}
		_, _, err = Parse([]byte("[runs]\n\nkeep_days = -3\n"), "c.toml", base)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != "runs.keep_days" || ce.Line != 3 {
			t.Errorf("negative: %v", err)
		}
	})
	t.Run("lock timeout defaults to 10s, takes a duration, names the line of a bad one", func(t *testing.T) {
		cfg, _, err := Parse([]byte("[lock]\n"), "c.toml", base)
		if err != nil || cfg.Lock.Wait != 10*time.Second {
			t.Errorf("default: %+v, %v", cfg.Lock, err)
		}
		for in, want := range map[string]time.Duration{`"1m30s"`: 90 * time.Second, `"0s"`: 0, `"250ms"`: 250 * time.Millisecond} {
			cfg, _, err = Parse([]byte("[lock]\ntimeout = "+in+"\n"), "c.toml", base)
			if err != nil || cfg.Lock.Wait != want {
				t.Errorf("%s: %+v, %v, want %v", in, cfg.Lock, err, want)
			}
		}
		for in, msg := range map[string]string{`"soon"`: `"soon" is not a duration`, `"-1s"`: `"-1s" is negative`, `"10"`: `"10" is not a duration`, "10": "incompatible types"} {
			_, _, err = Parse([]byte("[lock]\n\ntimeout = "+in+"\n"), "c.toml", base)
			var ce *Error
			if !errors.As(err, &ce) || ce.Key != "lock.timeout" || ce.Line != 3 || !strings.Contains(ce.Message, msg) {
				t.Errorf("%s: err = %v, want line 3 and %q", in, err, msg)
			}
		}
	})
	t.Run("prime budget_tokens defaults to 2000 and must be positive", func(t *testing.T) {
		cfg, _, err := Parse([]byte("[prime]\nenabled = true\n"), "c.toml", base)
		if err != nil || cfg.Prime.BudgetTokens != 2000 || !cfg.Prime.Enabled {
			t.Errorf("default: %+v, %v", cfg.Prime, err)
		}
		cfg, warns, err := Parse([]byte("[prime]\nbudget_tokens = 500\n"), "c.toml", base)
		if err != nil || cfg.Prime.BudgetTokens != 500 || len(warns) != 0 {
			t.Errorf("500: %+v, %v, %v", cfg.Prime, warns, err)
		}
		_, _, err = Parse([]byte("[prime]\n\nbudget_tokens = 0\n"), "c.toml", base)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != "prime.budget_tokens" || ce.Line != 3 {
			t.Errorf("0: %v", err)
		}
		if !strings.Contains(string(Template("x")), "\nbudget_tokens = 2000\n") {
			t.Error("the template does not write budget_tokens = 2000")
		}
	})
	t.Run("runs consolidate is off unless set", func(t *testing.T) {
		cfg, warns, err := Parse([]byte("[runs]\nenabled = true\n"), "c.toml", base)
		if err != nil || cfg.Runs.Consolidate || len(warns) != 0 {
			t.Errorf("default: %+v, %v, %v", cfg.Runs, warns, err)
		}
		cfg, warns, err = Parse([]byte("[runs]\nconsolidate = true\n"), "c.toml", base)
		if err != nil || !cfg.Runs.Consolidate || len(warns) != 0 {
			t.Errorf("true: %+v, %v, %v", cfg.Runs, warns, err)
		}
		if !strings.Contains(string(Template("x")), "\nconsolidate = false\n") {
			t.Error("the template does not write consolidate = false")
		}
	})
	t.Run("size limits default when missing and must be positive", func(t *testing.T) {
		cfg, _, err := Parse([]byte("[facts]\nmax_lines = 300\n"), "c.toml", base)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Facts.MaxFactChars != 1000 || cfg.Facts.MaxFileBytes != DefaultMaxFileBytes || cfg.Facts.MaxTotalBytes != DefaultMaxTotalBytes {
			t.Errorf("got %+v", cfg.Facts)
		}
		cfg, _, err = Parse([]byte("[facts]\nmax_fact_chars = 50\nmax_file_bytes = 900\nmax_total_bytes = 2000\n"), "c.toml", base)
		if err != nil || cfg.Facts.MaxFactChars != 50 || cfg.Facts.MaxFileBytes != 900 || cfg.Facts.MaxTotalBytes != 2000 {
			t.Errorf("got %+v, %v", cfg.Facts, err)
		}
		for _, key := range []string{"max_total_bytes", "max_file_bytes", "max_fact_chars"} {
			_, _, err := Parse([]byte("[facts]\n"+key+" = 0\n"), "c.toml", base)
			var ce *Error
			if !errors.As(err, &ce) || ce.Key != "facts."+key {
				t.Errorf("%s = 0: err = %#v", key, err)
			}
		}
	})
	t.Run("bad prefix", func(t *testing.T) {
		_, _, err := Parse([]byte("[tasks]\nprefix = \"a.b\"\n"), "c.toml", base)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != "tasks.prefix" {
			t.Fatalf("err = %#v", err)
		}
	})
}

func TestDefaultPrefix(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/src/memctl":        "memctl",
		"/src/My_Repo.go":    "my-repo-go",
		"/src/--weird  name": "weird-name",
		"/src/___":           "tk",
		"/src/Beads2":        "beads2",
	} {
		if got := DefaultPrefix(in); got != want {
			t.Errorf("DefaultPrefix(%q) = %q, want %q", in, got, want)
		}
		if !ValidPrefix(DefaultPrefix(in)) {
			t.Errorf("DefaultPrefix(%q) is not a valid prefix", in)
		}
	}
}

func TestLoadUserReadsOnlyEmbed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := dir + "/config.toml"
	base := Default("x").Embed
	if got, warns, err := LoadUser(p, base); err != nil || len(warns) != 0 || got != base {
		t.Fatalf("missing file: %+v %v %v", got, warns, err)
	}
	os.WriteFile(p, []byte("[embed]\nprovider = \"ollama\"\nmodel = \"m\"\nmodle = \"typo\"\n\n[facts]\nmax_lines = 3\n"), 0o644)
	got, warns, err := LoadUser(p, base)
	if err != nil || got.Provider != "ollama" || got.Model != "m" || got.Batch != base.Batch {
		t.Fatalf("got %+v, %v", got, err)
	}
	if len(warns) != 2 || warns[0].Key != "embed.modle" || warns[1].Key != "facts" || !strings.Contains(warns[1].Message, "only [embed]") {
		t.Errorf("warnings %+v", warns)
	}
	os.WriteFile(p, []byte("[embed]\nprovider = \"cohere\"\n"), 0o644)
	if _, _, err := LoadUser(p, base); err == nil || !strings.Contains(err.Error(), "unknown provider") {
		t.Errorf("bad provider: %v", err)
	}
	os.WriteFile(p, []byte("[embed]\nbatch = \"many\"\n"), 0o644)
	var ce *Error
	if _, _, err := LoadUser(p, base); !errors.As(err, &ce) || ce.Line != 2 {
		t.Errorf("wrong type: %v", err)
	}
}

func TestUserConfigPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, filepath.Join("/x", "memctl", "config.toml")},
		{map[string]string{"HOME": "/h"}, filepath.Join("/h", ".config", "memctl", "config.toml")},
		{map[string]string{}, ""},
	} {
		if got := UserConfigPath(env(tc.env)); got != tc.want {
			t.Errorf("UserConfigPath(%v) = %q, want %q", tc.env, got, tc.want)
		}
	}
}

func TestUserPreferencesPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, filepath.Join("/x", "memctl", "preferences.md")},
		{map[string]string{"HOME": "/h"}, filepath.Join("/h", ".config", "memctl", "preferences.md")},
		{map[string]string{}, ""},
	} {
		if got := UserPreferencesPath(env(tc.env)); got != tc.want {
			t.Errorf("UserPreferencesPath(%v) = %q, want %q", tc.env, got, tc.want)
		}
	}
}

// TestParseLeavesBaseAlone: the decoder writes into maps in place; Parse
// must not write into base's (a failed parse returns base, and a caller
// may parse twice over one base).
func TestParseLeavesBaseAlone(t *testing.T) {
	t.Parallel()
	base := Default("mc")
	base.Facts.Policy["notes"] = PolicyReadonly
	base.Recall.Scopes["api"] = []string{"api/"}
	for _, src := range []string{
		"[facts.policy]\nnotes = \"append\"\nrl = \"\"\n[recall.scopes]\napi = [\"x/\"]\n",
		"[facts.policy]\nnotes = \"append\"\n[recall.scopes]\napi = [\"x/\"]\n",
	} {
		_, _, _ = Parse([]byte(src), "config.toml", base)
		if len(base.Facts.Policy) != 1 || base.Facts.Policy["notes"] != PolicyReadonly {
			t.Fatalf("Parse changed base's policies: %v", base.Facts.Policy)
		}
		if len(base.Recall.Scopes) != 1 || !slices.Equal(base.Recall.Scopes["api"], []string{"api/"}) {
			t.Fatalf("Parse changed base's scopes: %v", base.Recall.Scopes)
		}
	}
}

func TestObsoleteRecallKeys(t *testing.T) {
	t.Parallel()
	// What memctl init wrote before: the values nobody chose pass in
	// silence, and keep the new defaults.
	old := "[recall]\nrrf_k = 60.0\nbm25_weight = 1.0\ndense_weight = 1.0\n"
	cfg, warns, err := Parse([]byte(old), "config.toml", Default("x"))
	if err != nil || len(warns) != 0 {
		t.Fatalf("old defaults: warns %v, err %v", warns, err)
	}
	if cfg.Recall.Weights != Default("x").Recall.Weights {
		t.Errorf("old defaults changed the weights: %+v", cfg.Recall.Weights)
	}
	// A value someone chose is named, with what to do instead.
	_, warns, err = Parse([]byte("[recall]\nrrf_k = 20\ndense_weight = 2\n"), "config.toml", Default("x"))
	if err != nil || len(warns) != 2 || warns[0].Key != "recall.dense_weight" || warns[1].Key != "recall.rrf_k" ||
		!strings.Contains(warns[1].Message, "[recall.weights]") {
		t.Errorf("chosen values: warns %v, err %v", warns, err)
	}
	_, _, err = Parse([]byte("[recall.weights]\nbm25 = 0\ndense = 0\nmatch = 0\n"), "config.toml", Default("x"))
	var ce *Error
	if !errors.As(err, &ce) || ce.Key != "recall.weights" {
		t.Errorf("all weights 0: err %v", err)
	}
}

// TestRecallWeightsMustBeFiniteAndNotNegative: NaN passes a "< 0" test and
// made recall's JSON fail; infinity made every score NaN. The error names
// the weight and its line.
func TestRecallWeightsMustBeFiniteAndNotNegative(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"nan", "inf", "-1", "-inf"} {
		data := "[recall]\nrun_half_life_days = 30\n\n[recall.weights]\nbm25 = 0.2\ndense = " + v + "\nmatch = 0.7\n"
		_, _, err := Parse([]byte(data), "config.toml", Default("x"))
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != "recall.weights.dense" || ce.Line != 6 {
			t.Errorf("dense = %s: %v (%+v), want an error at recall.weights.dense, line 6", v, err, ce)
		}
	}
	if _, _, err := Parse([]byte("[recall.weights]\nbm25 = 1\ndense = 0\nmatch = 0\n"), "config.toml", Default("x")); err != nil {
		t.Errorf("one weight alone: %v", err)
	}
}
