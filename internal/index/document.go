package index

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The kinds of document. Recall's --kind takes these names.
const (
	KindFact     = "fact"
	KindTask     = "task"
	KindProposal = "proposal"
	KindRun      = "run"
	KindPlaybook = "playbook"
	// KindPersonal is a personal preference: the person's own text, from
	// a file outside the repository (OutsideSource).
	KindPersonal = "personal"
)

// Kinds lists the kinds of document, in the order help shows them.
var Kinds = []string{KindFact, KindTask, KindProposal, KindRun, KindPlaybook, KindPersonal}

// Doc is one searchable document and where it came from.
type Doc struct {
	// ID is unique in the index: Kind + ":" + Ref.
	ID string
	// Kind is fact, task, proposal, run or playbook.
	Kind string
	// Ref is the id a user knows it by: a fact, task, proposal or run id.
	Ref   string
	Title string
	Body  string
	// File is the source file, slash-separated and relative to the
	// repository root (or, from an OutsideSource, as that source names
	// it); Line is the document's first line in it (0 when the file has
	// one document or lines do not apply).
	File string
	Line int
	// Category (facts, proposals), Status (tasks, proposals), Labels and
	// Priority (tasks; -1 when none) are filters.
	Category string
	Status   string
	Labels   []string
	Priority int
	// Approved is true for human-verified text (facts), which recall
	// ranks ahead of unapproved text at equal relevance.
	Approved bool
	// Created is when the document's subject was created, if known.
	Created time.Time
	// Files are paths the document is about (a run's files), for scopes.
	Files []string
	// Commit is set by Index.Docs: the commit whose tree holds File's
	// content exactly, or "" (uncommitted changes, or no repository).
	Commit string
}

// Text is what is searched: the title, then the body.
func (d *Doc) Text() string {
	if d.Title == "" {
		return d.Body
	}
	if d.Body == "" {
		return d.Title
	}
	return d.Title + "\n" + d.Body
}

// hash identifies the document's content and metadata: a document whose
// hash is unchanged is not re-indexed.
func (d *Doc) hash() string {
	h := sha256.New()
	for _, s := range []string{d.ID, d.Title, d.Body, d.File, strconv.Itoa(d.Line), d.Category, d.Status,
		strings.Join(d.Labels, "\x1f"), strconv.Itoa(d.Priority), strconv.FormatBool(d.Approved),
		strconv.FormatInt(d.Created.Unix(), 10), strings.Join(d.Files, "\x1f")} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Source produces the documents of one kind from the workspace's files.
// Adding a kind of document is adding a Source.
type Source interface {
	// Kind names the documents' kind.
	Kind() string
	// Files lists the files the source reads: slash-separated paths
	// relative to root, which need not exist.
	Files(root string) ([]string, error)
	// Docs parses one file, already read, into documents.
	Docs(file string, data []byte) ([]Doc, error)
}

// OutsideSource is a Source whose files are outside the repository (the
// personal preferences file): it names each file as it wants it shown
// ("~/.config/memctl/preferences.md"), and Locate gives the path to read.
// Such a file is never in a commit, so its documents have none.
type OutsideSource interface {
	Source
	// Locate is the path of a file Files listed, in the OS's form.
	Locate(file string) string
}

// sourcePath is where file of src is read: under root, or where an
// OutsideSource locates it.
func sourcePath(root string, src Source, file string) (path string, outside bool) {
	if o, ok := src.(OutsideSource); ok {
		return o.Locate(file), true
	}
	return filepath.Join(root, filepath.FromSlash(file)), false
}

// joinList stores a list in one column, with separators at both ends so a
// LIKE '%\x1fitem\x1f%' finds an item exactly.
func joinList(items []string) string {
	if len(items) == 0 {
		return ""
	}
	return "\x1f" + strings.Join(items, "\x1f") + "\x1f"
}

func splitList(s string) []string {
	s = strings.Trim(s, "\x1f")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x1f")
}
