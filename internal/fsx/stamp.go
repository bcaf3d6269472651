package fsx

// Stamp is a regular file of a directory and what it is now: size,
// modification time and inode, which change whenever the file is written
// (an atomic replacement, such as every memctl write and git's checkout,
// makes a new inode even within one tick of a coarse clock). A cache keyed
// by stamps is checked with one cheap call per file instead of a read.
type Stamp struct {
	Name    string
	Size    int64
	ModTime int64  // Unix nanoseconds
	Ino     uint64 // 0 where the platform has none
}
