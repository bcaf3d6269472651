//go:build !unix

package fsx

import "os"

// Stamps lists the regular files of dir (not following links) with their
// stamps, in directory order.
func Stamps(dir string) ([]Stamp, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]Stamp, 0, len(ents))
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		out = append(out, Stamp{Name: e.Name(), Size: fi.Size(), ModTime: fi.ModTime().UnixNano()})
	}
	return out, nil
}
