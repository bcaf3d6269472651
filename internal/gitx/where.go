package gitx

import (
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Branch returns the branch HEAD is on, read from the git directory's
// HEAD file; "" when HEAD is detached or cannot be read.
func (r *Repo) Branch() string {
	data, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return ""
	}
	name, _ := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: refs/heads/")
	if name == strings.TrimSpace(string(data)) {
		return ""
	}
	return name
}

// RemoteName names the repository by its origin remote (else the first
// remote by name) as host/path: github.com/acme/app for
// git@github.com:acme/app.git or https://user:token@github.com/acme/app.
// It is "" when there is no remote or it is a local path, which would name
// one machine only. Credentials in the URL never come out.
func (r *Repo) RemoteName() string {
	repo, err := open(r.Root)
	if err != nil {
		return ""
	}
	cfg, err := repo.Config()
	if err != nil || len(cfg.Remotes) == 0 {
		return ""
	}
	names := make([]string, 0, len(cfg.Remotes))
	for n := range cfg.Remotes {
		names = append(names, n)
	}
	sort.Strings(names)
	if _, ok := cfg.Remotes["origin"]; ok {
		names = []string{"origin"}
	}
	urls := cfg.Remotes[names[0]].URLs
	if len(urls) == 0 {
		return ""
	}
	return RepoName(urls[0])
}

// RepoName turns a remote URL into host/path: the scheme, user,
// password, port and a trailing .git or slash are dropped. A local path
// or file:// URL gives "".
func RepoName(raw string) string {
	raw = strings.TrimSpace(raw)
	host, path := "", ""
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" && u.Host != "" {
		if u.Scheme == "file" {
			return ""
		}
		host, path = u.Hostname(), u.Path
	} else if at := strings.Index(raw, ":"); at > 1 && !strings.Contains(raw[:at], "/") && !strings.Contains(raw, "://") {
		// scp-like, [user@]host:path (a one-letter host is a Windows drive)
		host, path = raw[:at], raw[at+1:]
		if i := strings.LastIndex(host, "@"); i >= 0 {
			host = host[i+1:]
		}
	} else {
		return ""
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	if host == "" || path == "" {
		return ""
	}
	return host + "/" + path
}
