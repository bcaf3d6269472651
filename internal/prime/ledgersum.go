package prime

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/fsx"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/proposal"
)

// Parsing the facts files (Markdown) and decoding a thousand proposal
// files cost prime about 20 ms, for what changes only when someone
// writes a fact or a proposal. So prime keeps what it takes from them —
// the facts of the files it uses, the problems of the others, and of the
// proposals only what it shows (approval times, rejections, the pending
// ones) — in a derived file next to the task cache, for facts files of
// exactly these names and stamps (fsx.Stamp; people edit them in place;
// a link is stamped by the file it names, which is what is read), and a
// proposals directory of this stamp: memctl writes a proposal by
// renaming a new file over it and git checks one out by creating it, and
// either changes the directory (checking a thousand files' stamps cost
// more than the rest of prime). A proposal file edited in place by hand
// is seen once the directory changes. The summary is trusted only when
// written fsx.RacyWindow after the newest of those stamps. Anything that
// does not match is read again.
const (
	ledgerSummaryMagic = "MCPL"
	// ledgerSummaryVersion 1: the first format.
	// ledgerSummaryVersion 2: change times and the directory's inode in the key.
	// ledgerSummaryVersion 3: facts as ledger.Parse reads them since an item
	// holding only empty lists is no fact and CRLF ends an empty item.
	ledgerSummaryVersion = 3
)

// ledgerKey is the stamps of the facts files, sorted by name, and of the
// proposals directory, and the newest of their times.
func ledgerKey(ws *config.Workspace) (key []byte, newest int64, err error) {
	stamps, err := fsx.StampsFollow(ws.Path(config.FactsDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, 0, err
	}
	slices.SortFunc(stamps, func(a, b fsx.Stamp) int { return strings.Compare(a.Name, b.Name) })
	b := binary.AppendUvarint(nil, uint64(len(stamps)))
	for _, s := range stamps {
		b = appendString(b, s.Name)
		b = appendStamp(b, s)
		newest = max(newest, s.Newest())
	}
	dir, err := fsx.StatStamp(ws.Path(config.ProposalsDir))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return append(b, 0), newest, nil
	case err != nil:
		return nil, 0, err
	}
	b = append(b, 1)
	return appendStamp(b, dir), max(newest, dir.Newest()), nil
}

// appendStamp writes a stamp without its name.
func appendStamp(b []byte, s fsx.Stamp) []byte {
	b = binary.AppendVarint(b, s.Size)
	b = binary.AppendVarint(b, s.ModTime)
	b = binary.AppendVarint(b, s.ChangeTime)
	return binary.AppendUvarint(b, s.Ino)
}

// cacheDir is where prime keeps its derived files: with the task cache,
// else with the run list's cache; "" keeps none.
func cacheDir(opts Options) string {
	switch {
	case opts.TasksCache != "":
		return filepath.Dir(opts.TasksCache)
	case opts.Runs.Cache != "":
		return filepath.Dir(opts.Runs.Cache)
	}
	return ""
}

// readLedger fills the facts and proposals parts, from the summary when it
// holds (cached), else from the files (and stores the summary).
func (g *gathered) readLedger(ws *config.Workspace, opts Options) (cached bool) {
	dir := cacheDir(opts)
	key, newest, err := ledgerKey(ws)
	if dir != "" && err == nil {
		if g.decodeLedger(filepath.Join(dir, "prime-ledger.cache"), key, newest) {
			return true
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { g.safely(partFacts, func() { g.readFacts(ws) }) })
	g.readProposals(ws)
	wg.Wait()
	if dir == "" || err != nil || g.facts == nil || g.proposalsBroken || len(g.factsUnread) > 0 {
		// What could not be read is read, and reported, again (and a
		// facts file left out is named to the pins that may be in it).
		return false
	}
	// key was taken before the reads: a write during them changes a stamp,
	// and the summary stored under key is not used again.
	if os.MkdirAll(dir, 0o755) == nil {
		_ = fsx.WriteDerived(filepath.Join(dir, "prime-ledger.cache"), g.encodeLedger(key))
	}
	return false
}

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return binary.AppendVarint(b, 0)
	}
	return binary.AppendVarint(b, t.UnixNano())
}

func (d *decoder) time() time.Time {
	n := d.varint()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func appendProblems(b []byte, ps []Problem) []byte {
	b = binary.AppendUvarint(b, uint64(len(ps)))
	for _, p := range ps {
		b = appendString(b, p.Part)
		b = appendString(b, p.Where)
		b = appendString(b, p.Message)
	}
	return b
}

func (d *decoder) problems() []Problem {
	var out []Problem
	for n := d.count(); n > 0; n-- {
		out = append(out, Problem{Part: d.str(), Where: d.str(), Message: d.str()})
	}
	return out
}

// encodeLedger writes the facts files used (category, path, facts) and
// the proposals prime shows something of.
func (g *gathered) encodeLedger(key []byte) []byte {
	b := []byte(ledgerSummaryMagic)
	b = binary.LittleEndian.AppendUint32(b, ledgerSummaryVersion)
	b = appendString(b, string(key))
	b = binary.AppendUvarint(b, uint64(len(g.facts.Files)))
	for _, f := range g.facts.Files {
		b = appendString(b, f.Category)
		b = appendString(b, f.Path)
		b = binary.AppendUvarint(b, uint64(len(f.Facts)))
		for _, x := range f.Facts {
			b = appendString(b, x.ID)
			b = appendString(b, x.Text)
			b = binary.AppendUvarint(b, uint64(x.Line))
		}
	}
	b = appendProblems(b, g.probs[partFacts])
	b = binary.AppendUvarint(b, uint64(g.pending))
	b = appendMap(b, g.approved, appendTime)
	b = binary.AppendUvarint(b, uint64(len(g.rejected)))
	for _, p := range g.rejected {
		for _, s := range []string{p.ID, p.Kind, p.Action, p.Category, p.Content, p.Signature, p.Feedback} {
			b = appendString(b, s)
		}
		b = appendTime(b, *p.ReviewedAt)
	}
	return appendProblems(b, g.probs[partProposals])
}

// decodeLedger reads the summary at p if it holds for key, whose newest
// time is newest.
func (g *gathered) decodeLedger(p string, key []byte, newest int64) bool {
	data, ok := fsx.ReadSettled(p, newest)
	if !ok || len(data) < 8 || !bytes.HasPrefix(data, []byte(ledgerSummaryMagic)) ||
		binary.LittleEndian.Uint32(data[4:]) != ledgerSummaryVersion {
		return false
	}
	d := decoder{b: data[8:]}
	if d.str() != string(key) || d.bad {
		return false
	}
	l := &ledger.Ledger{}
	for n := d.count(); n > 0; n-- {
		f := &ledger.File{Category: d.str(), Path: d.str()}
		for m := d.count(); m > 0; m-- {
			x := ledger.Fact{ID: d.str(), Text: d.str(), Category: f.Category, File: f.Path}
			x.Line = int(d.uvarint())
			f.Facts = append(f.Facts, x)
		}
		l.Files = append(l.Files, f)
	}
	factProblems := d.problems()
	pending := int(d.uvarint())
	approved := map[string]time.Time{}
	for n := d.count(); n > 0; n-- {
		k := d.str()
		approved[k] = d.time()
	}
	var rejected []*proposal.Proposal
	for n := d.count(); n > 0; n-- {
		p := &proposal.Proposal{ID: d.str(), Kind: d.str(), Action: d.str(), Category: d.str(), Content: d.str(),
			Signature: d.str(), Feedback: d.str(), Status: proposal.StatusRejected}
		at := d.time()
		p.ReviewedAt = &at
		rejected = append(rejected, p)
	}
	propProblems := d.problems()
	if d.bad || len(d.b) != 0 {
		return false
	}
	g.facts, g.pending, g.approved, g.rejected = l, pending, approved, rejected
	g.probs[partFacts], g.probs[partProposals] = factProblems, propProblems
	return true
}
