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

// Install makes the memctl block in root/AGENTS.md current and creates
// root/CLAUDE.md with an import of AGENTS.md if there is no CLAUDE.md. It
// never writes through a symbolic link and never touches an existing
// CLAUDE.md.
func Install(root string) (*Result, error) {
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
	claudePath := filepath.Join(root, "CLAUDE.md")
	if _, err := os.Lstat(claudePath); errors.Is(err, fs.ErrNotExist) {
		if err := fsx.WriteFile(claudePath, []byte(ClaudeFile), 0o644); err != nil {
			return nil, err
		}
		res.Created = append(res.Created, "CLAUDE.md")
	} else if err != nil {
		return nil, fmt.Errorf("read CLAUDE.md: %w", err)
	}
	return res, nil
}
