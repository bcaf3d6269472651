//go:build !unix

package fsx

import (
	"errors"
	"os"
)

// mapFile is not available here; ReadMapped falls back to reading.
func mapFile(*os.File, int) ([]byte, error) { return nil, errors.ErrUnsupported }

func readSmall(path string, _ []byte) ([]byte, error) { return os.ReadFile(path) }
