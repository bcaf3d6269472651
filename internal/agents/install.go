package agents

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/memctl/memctl/internal/fsx"
)

// Result says what Install did; paths are relative to the root.
type Result struct {
	Created  []string
	Updated  []string
	Warnings []string
}

// Plan checks that AGENTS.md can take the block, before anything is
// written: a broken block is an error that names the line.
func Plan(root string) error {
	data, err := os.ReadFile(filepath.Join(root, "AGENTS.md"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read AGENTS.md: %w", err)
	}
	if _, _, err := Upsert(data); err != nil {
		return fmt.Errorf("AGENTS.md: %w", err)
	}
	return nil
}

// Options says what Install may change beyond AGENTS.md.
type Options struct {
	// ClaudeMD adds the line @AGENTS.md to an existing CLAUDE.md that does
	// not import AGENTS.md. Without it Install only warns.
	ClaudeMD bool
}

// Install makes the memctl block in root/AGENTS.md current and creates
// root/CLAUDE.md with an import of AGENTS.md if there is no CLAUDE.md. An
// existing CLAUDE.md without the import gets a warning, or the import with
// opts.ClaudeMD. It never writes through a symbolic link.
func Install(root string, opts Options) (*Result, error) {
	res := &Result{}
	agentsPath := filepath.Join(root, "AGENTS.md")
	fi, err := os.Lstat(agentsPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := fsx.WriteFile(agentsPath, []byte(Block()), 0o644); err != nil {
			return nil, err
		}
		res.Created = append(res.Created, "AGENTS.md")
	case err != nil:
		return nil, fmt.Errorf("read AGENTS.md: %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		res.Warnings = append(res.Warnings, "AGENTS.md is a symbolic link; memctl does not write through links. Copy the block from 'memctl init' docs into its target yourself")
	default:
		data, err := os.ReadFile(agentsPath)
		if err != nil {
			return nil, fmt.Errorf("read AGENTS.md: %w", err)
		}
		out, changed, err := Upsert(data)
		if err != nil {
			return nil, fmt.Errorf("AGENTS.md: %w", err)
		}
		if changed {
			if err := fsx.WriteFile(agentsPath, out, 0o644); err != nil {
				return nil, err
			}
			res.Updated = append(res.Updated, "AGENTS.md")
		}
	}
	if err := installClaude(root, opts, res); err != nil {
		return nil, err
	}
	return res, nil
}

// installClaude makes sure Claude Code, which reads CLAUDE.md and not
// AGENTS.md, sees the memctl block: a new CLAUDE.md is the import alone; an
// existing one that lacks the import gets it appended when opts.ClaudeMD,
// and a warning otherwise.
func installClaude(root string, opts Options, res *Result) error {
	claudePath := filepath.Join(root, "CLAUDE.md")
	fi, err := os.Lstat(claudePath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := fsx.WriteFile(claudePath, []byte(ClaudeFile), 0o644); err != nil {
			return err
		}
		res.Created = append(res.Created, "CLAUDE.md")
		return nil
	case err != nil:
		return fmt.Errorf("read CLAUDE.md: %w", err)
	}
	data, err := os.ReadFile(claudePath)
	if err != nil {
		return fmt.Errorf("read CLAUDE.md: %w", err)
	}
	// A CLAUDE.md that is (a link to) AGENTS.md carries the block itself.
	if st, _ := Inspect(data); ImportsAgents(data) || st != Missing {
		return nil
	}
	switch {
	case !opts.ClaudeMD:
		res.Warnings = append(res.Warnings, "CLAUDE.md does not import AGENTS.md, so Claude Code will not see the memctl block; run 'memctl init --claude-md' to add the line @AGENTS.md to it")
	case fi.Mode()&fs.ModeSymlink != 0:
		res.Warnings = append(res.Warnings, "CLAUDE.md is a symbolic link and does not import AGENTS.md; memctl does not write through links: add the line @AGENTS.md to its target yourself")
	default:
		if err := fsx.WriteFile(claudePath, AddImport(data), fi.Mode().Perm()); err != nil {
			return err
		}
		res.Updated = append(res.Updated, "CLAUDE.md")
	}
	return nil
}
