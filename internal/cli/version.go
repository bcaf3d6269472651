package cli

import (
	"context"
	"fmt"
	"runtime"
	"strings"

	"github.com/spf13/cobra"
)

type versionOptions struct {
	json bool
}

func newVersionCmd(env *Env) *cobra.Command {
	var opts versionOptions
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print memctl's version",
		Example: "  memctl version\n  memctl version --json",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return runVersion(cmd.Context(), env, opts) },
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON (the shape: memctl help json)")
	return cmd
}

type versionJSON struct {
	SchemaVersion int    `json:"schema_version"`
	Version       string `json:"version"`
	Commit        string `json:"commit"`
	Dirty         bool   `json:"dirty"`
	Go            string `json:"go"`
	Platform      string `json:"platform"`
}

func runVersion(_ context.Context, env *Env, opts versionOptions) error {
	b := readBuild()
	v := versionJSON{SchemaVersion: schemaVersion, Version: b.Version, Commit: b.Commit, Dirty: b.Dirty,
		Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if opts.json {
		return writeJSON(env.Out, v)
	}
	var parts []string
	if v.Commit != "" && !strings.Contains(v.Version, shortCommit(v.Commit)) {
		parts = append(parts, "commit "+shortCommit(v.Commit))
	}
	if v.Dirty && !strings.HasSuffix(v.Version, "dirty") {
		parts = append(parts, "modified")
	}
	parts = append(parts, v.Go, v.Platform)
	_, err := fmt.Fprintf(env.Out, "memctl %s (%s)\n", v.Version, strings.Join(parts, ", "))
	return err
}

// shortCommit is a commit hash as git abbreviates it.
func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
