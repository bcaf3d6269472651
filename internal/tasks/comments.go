package tasks

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// nextCommentID returns the id style of the file's comments. bd before
// 1.0 numbered comments with integers from one counter per database, and
// bd 0.49.6 rejects the whole file when a comment id is a string; bd ≥ 1.0
// reads either and writes UUID strings. So a new comment gets the largest
// integer id plus one (1 in a file without comments), which every bd
// loads, unless the file's comment ids are all strings: a bd ≥ 1.0 file,
// which gets a UUID as bd would write.
func (s *Store) nextCommentID() (next int64, numeric bool) {
	c := s.commentIDs()
	if c.uuids && !c.numeric {
		return 0, false
	}
	return c.max + 1, true
}

// scanCommentIDs reads the comment ids of records.
func scanCommentIDs(records []*Record) commentIDs {
	var c commentIDs
	for _, r := range records {
		if r.Issue == nil || r.Issue.Comments == 0 {
			continue
		}
		d := decoder{line: r.Line}
		for _, e := range d.elements(field{key: "comments", raw: r.get("comments")}) {
			fs, _, err := scanObject(e)
			if err != nil {
				continue
			}
			for _, f := range fs {
				if f.key != "id" {
					continue
				}
				if n, err := strconv.ParseInt(string(f.raw), 10, 64); err == nil {
					c.numeric = true
					c.max = max(c.max, n)
				} else {
					c.uuids = true
				}
			}
		}
	}
	return c
}

// Comment is one comment on an issue.
type Comment struct {
	ID        string
	IssueID   string
	Author    string
	Text      string
	CreatedAt time.Time
}

// Comments decodes the comments of iss. Comment ids may be numbers (bd
// before 1.0) or strings.
func (s *Store) Comments(iss *Issue) []Comment {
	d := decoder{line: iss.rec.Line}
	var out []Comment
	for _, e := range d.elements(field{key: "comments", raw: iss.rec.get("comments")}) {
		fs, _, err := scanObject(e)
		if err != nil {
			continue
		}
		var c Comment
		for _, f := range fs {
			switch f.key {
			case "id":
				if v, ok := rawString(f.raw); ok {
					c.ID = v
				} else {
					c.ID = string(f.raw)
				}
			case "issue_id":
				c.IssueID, _ = rawString(f.raw)
			case "author":
				c.Author, _ = rawString(f.raw)
			case "text":
				c.Text, _ = rawString(f.raw)
			case "created_at":
				c.CreatedAt = d.time(f)
			}
		}
		out = append(out, c)
	}
	return out
}

// AddComment appends a comment whose id follows the file (see
// nextCommentID): the next integer, unless the file's comments all have
// string ids (bd ≥ 1.0's UUIDs), when it is a random UUID read from rand.
// Integers are what both eras load: bd 0.49.6 rejects a string id, and
// bd 1.0's import takes an integer.
func (s *Store) AddComment(id, author, text string, rand io.Reader, now time.Time) (Comment, error) {
	iss, err := s.Get(id)
	if err != nil {
		return Comment{}, err
	}
	if strings.TrimSpace(text) == "" {
		return Comment{}, &ValidationError{Field: "text", Message: "must not be empty"}
	}
	if err := s.gate(oneLineField("author", &author), textField("comment", &text)); err != nil {
		return Comment{}, err
	}
	var cid string
	var rawID []byte // the id as the file holds it: a number or a string
	if next, numeric := s.nextCommentID(); numeric {
		cid = strconv.FormatInt(next, 10)
		rawID = []byte(cid)
	} else {
		var u [16]byte
		if _, err := io.ReadFull(rand, u[:]); err != nil {
			return Comment{}, err
		}
		u[6] = u[6]&0x0f | 0x40
		u[8] = u[8]&0x3f | 0x80
		cid = fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:])
		rawID, _ = json.Marshal(cid)
	}
	now = now.UTC().Truncate(time.Second)
	c := Comment{ID: cid, IssueID: id, Author: author, Text: text, CreatedAt: now}
	raw, _ := json.Marshal(struct {
		ID        json.RawMessage `json:"id"`
		IssueID   string          `json:"issue_id"`
		Author    string          `json:"author"`
		Text      string          `json:"text"`
		CreatedAt string          `json:"created_at"`
	}{rawID, id, author, text, now.Format(time.RFC3339)})
	r := iss.rec
	d := decoder{line: r.Line}
	r.setRaw("comments", appendRaw(d.elements(field{key: "comments", raw: r.get("comments")}), raw))
	_, err = s.touch(r, now)
	return c, err
}
