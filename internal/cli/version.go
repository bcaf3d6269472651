package cli

import (
	"context"
	"fmt"
	"runtime"

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
	Go            string `json:"go"`
	Platform      string `json:"platform"`
}

func runVersion(_ context.Context, env *Env, opts versionOptions) error {
	v := versionJSON{SchemaVersion: schemaVersion, Version: Version(), Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if opts.json {
		return writeJSON(env.Out, v)
	}
	_, err := fmt.Fprintf(env.Out, "memctl %s (%s, %s)\n", v.Version, v.Go, v.Platform)
	return err
}
