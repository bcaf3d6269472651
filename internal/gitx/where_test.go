package gitx

import "testing"

func TestRepoName(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"git@github.com:acme/app.git":                                "github.com/acme/app",
		"https://github.com/acme/app":                                "github.com/acme/app",
		"https://x-access-token:ghp_secret@github.com/acme/app.git/": "github.com/acme/app",
		"ssh://git@gitlab.example.com:2222/group/sub/app.git":        "gitlab.example.com/group/sub/app",
		"/srv/git/app.git":                                           "",
		"file:///srv/git/app.git":                                    "",
		"../app":                                                     "",
		"C:/repos/app":                                               "",
	} {
		if got := RepoName(raw); got != want {
			t.Errorf("RepoName(%q) = %q, want %q", raw, got, want)
		}
	}
}
