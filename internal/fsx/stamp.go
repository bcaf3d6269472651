package fsx

// Stamp is a regular file of a directory and what it is now: size and
// modification time, which change whenever the file is written. A cache
// keyed by stamps is checked with one cheap call per file instead of a read.
type Stamp struct {
	Name    string
	Size    int64
	ModTime int64 // Unix nanoseconds
}
