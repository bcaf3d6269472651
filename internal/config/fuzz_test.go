package config

import (
	"errors"
	"reflect"
	"testing"
)

// FuzzParse: any config.toml is read without a panic; an error is an
// *Error that names the file and a line of it, and leaves the defaults as
// they were; a file that parses keeps every limit in range.
func FuzzParse(f *testing.F) {
	f.Add(Template("mc"))
	f.Add([]byte("[facts]\r\nmax_lines = 300\r\n"))
	f.Add([]byte("[facts]\nmax_lines = 0\n"))
	f.Add([]byte("[facts]\nmax_lines = 99999999999999999999999\n"))
	f.Add([]byte("facts = { max_lines = -1 }\n"))
	f.Add([]byte("[facts]\nmax_lines = \"300\"\n"))
	f.Add([]byte("<<<<<<< ours\n[facts]\nmax_lines = 300\n=======\n[facts]\nmax_lines = 200\n>>>>>>> theirs\n"))
	f.Add([]byte("[facts]\nmax_lines = 300\n[facts]\n"))
	f.Add([]byte("title = \"\xff\"\n"))
	f.Add([]byte("a = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n"))
	f.Add([]byte("[embed]\nprovider = \"nope\"\n[unknown.table]\nx = 1\n"))
	base := Default("mc")
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, warns, err := Parse(data, "config.toml", base)
		for _, w := range warns {
			if w.File != "config.toml" || w.Key == "" {
				t.Fatalf("warning %+v names no file or key", w)
			}
		}
		if err == nil {
			if cfg.validate("config.toml") != nil {
				t.Fatalf("accepted a config that does not validate: %v", cfg.validate("config.toml"))
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v (%T) is not an *Error", err, err)
		}
		if e.File != "config.toml" {
			t.Fatalf("error %v names file %q", err, e.File)
		}
		if lines := max(1, lineCount(data)); e.Line < 1 || e.Line > lines {
			t.Fatalf("error names line %d of a %d-line file: %v\n%q", e.Line, lines, err, data)
		}
		if !reflect.DeepEqual(cfg, base) {
			t.Fatal("a failed parse changed the defaults it returns")
		}
	})
}
