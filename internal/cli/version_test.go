package cli

import (
	"runtime/debug"
	"testing"
)

func TestPseudoVersionCommit(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]string{
		"v0.0.0-20261129020405-e5a9bc83242a":              "e5a9bc83242a",
		"v0.0.0-20261129020405-e5a9bc83242a+dirty":        "e5a9bc83242a",
		"v1.2.4-0.20261129020405-e5a9bc83242a":            "e5a9bc83242a",
		"v1.2.4-pre.0.20261129020405-e5a9bc83242a":        "e5a9bc83242a",
		"v2.0.0-20261129020405-e5a9bc83242a+incompatible": "e5a9bc83242a",
		"v1.2.3":                             "",
		"v1.2.3-rc.1":                        "",
		"v0.0.0-2026112902040-e5a9bc83242a":  "", // 13-digit time
		"v0.0.0-20261129020405-E5A9BC83242A": "", // not lower hex
		"dev":                                "",
	} {
		if got := pseudoVersionCommit(v); got != want {
			t.Errorf("pseudoVersionCommit(%q) = %q, want %q", v, got, want)
		}
	}
}

// What a build says it is, from each way it can be built.
func TestBuildFrom(t *testing.T) {
	t.Parallel()
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, c := range []struct {
		name            string
		bi              *debug.BuildInfo
		version, commit string
		want            build
	}{
		{"no build info", nil, "", "", build{Version: "dev"}},
		{"make build: stamped", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("abc123", "true")}, "e5a9bc8-dirty", "",
			build{Version: "e5a9bc8-dirty", Commit: "abc123", Dirty: true}},
		{"goreleaser: both stamped", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "v1.2.3", "fedcba",
			build{Version: "v1.2.3", Commit: "fedcba"}},
		{"go install @v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "", "", build{Version: "v1.2.3"}},
		{"go install @commit", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261129020405-e5a9bc83242a"}}, "", "",
			build{Version: "v0.0.0-20261129020405-e5a9bc83242a", Commit: "e5a9bc83242a"}},
		{"go build in a checkout", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261129020405-e5a9bc83242a+dirty"},
			Settings: vcs("e5a9bc83242a6d41d2ef18d23b6ecea19066f940", "true")}, "", "",
			build{Version: "v0.0.0-20261129020405-e5a9bc83242a+dirty", Commit: "e5a9bc83242a6d41d2ef18d23b6ecea19066f940", Dirty: true}},
		{"go build without vcs", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "", "", build{Version: "dev"}},
	} {
		if got := buildFrom(c.bi, c.version, c.commit); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
