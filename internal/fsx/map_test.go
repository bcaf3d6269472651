package fsx

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestReadMapped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, size := range []int{0, 10, mapThreshold - 1, mapThreshold, 3*mapThreshold + 17} {
		want := bytes.Repeat([]byte("0123456789abcdef\n"), size/17+1)[:size]
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadMapped(p)
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("size %d: content differs", size)
		}
		// The mapping keeps the old content when the file is replaced by
		// rename, as every memctl write does.
		if err := WriteFile(p, []byte("new"), 0o644); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("size %d: content changed after the file was replaced", size)
		}
	}
	if _, err := ReadMapped(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: got %v, want fs.ErrNotExist", err)
	}
}

var sink byte

// cli.Main relies on this: a mapped file truncated in place by another
// program faults on the next read, and with SetPanicOnFault the fault is
// a recoverable panic whose value has the faulting address.
func TestReadMappedTruncatedFaultIsRecoverable(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no mapping on windows: ReadMapped reads the file")
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, bytes.Repeat([]byte{'x'}, 4*mapThreshold), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ReadMapped(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	done := make(chan any)
	go func() {
		defer func() { done <- recover() }()
		debug.SetPanicOnFault(true)
		sink = b[len(b)-1]
	}()
	r := <-done
	if _, ok := r.(interface{ Addr() uintptr }); !ok {
		t.Fatalf("reading a truncated mapping: recovered %v, want a fault with an address", r)
	}
}

func TestWriteFileFuncFailureKeepsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFileFunc(p, 0o644, func(w io.Writer) error {
		_, _ = w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the writer's error", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "old\n" {
		t.Fatalf("file is %q after a failed write, want the old content", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("%d files in the directory, want 1: the temporary file is left behind", len(entries))
	}
	if err := WriteFileFunc(p, 0o644, func(w io.Writer) error { _, err := w.Write([]byte("new\n")); return err }); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if got, _ := os.ReadFile(p); string(got) != "new\n" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("got %q mode %v, want \"new\\n\" with the old mode 0600", got, fi.Mode().Perm())
	}
}

func TestReadSmall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scratch := make([]byte, 64)
	for _, size := range []int{0, 1, 63, 64, 65, 1000} {
		want := bytes.Repeat([]byte("abcdefg"), size/7+1)[:size]
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadSmall(p, scratch)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("size %d: got %d bytes, %v; want the file", size, len(got), err)
		}
		if size > 0 && &got[0] == &scratch[0] {
			t.Fatalf("size %d: the result shares the scratch buffer", size)
		}
	}
	if _, err := ReadSmall(filepath.Join(dir, "missing"), scratch); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: got %v, want fs.ErrNotExist", err)
	}
}
