package tasks

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// AddDep records that from depends on to with type typ. Blocking edges
// that would close a cycle are refused with a *CycleError.
func (s *Store) AddDep(from, to, typ string, who Actor, now time.Time) error {
	if !ValidDepType(typ) {
		return &ValidationError{Field: "type", Message: fmt.Sprintf("unknown dependency type %q", typ)}
	}
	if from == to {
		return &ValidationError{Field: "depends_on_id", Message: "an issue cannot depend on itself"}
	}
	if err := s.gate(oneLineField("depends_on_id", &to), oneLineField("created_by", &who.Name)); err != nil {
		return err
	}
	iss, err := s.Get(from)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(to, "external:") {
		if _, err := s.peek(to); err != nil {
			return err
		}
	}
	for _, d := range iss.Deps {
		if d.DependsOnID == to {
			if d.Type == typ {
				return nil
			}
			return &ValidationError{Field: "type", Message: fmt.Sprintf("%s already depends on %s with type %q; remove it first", from, to, d.Type)}
		}
	}
	if isBlocking(typ) {
		if path := s.pathBetween(to, from); path != nil {
			return &CycleError{Path: append([]string{from}, path...)}
		}
	}
	now = now.UTC().Truncate(time.Second)
	r := iss.rec
	deps := rawDeps(r)
	edge, _ := json.Marshal(newDep(from, to, typ, who, now))
	r.setRaw("dependencies", appendRaw(deps, edge))
	_, err = s.touch(r, now)
	return err
}

// RemoveDep deletes the edge from → to.
func (s *Store) RemoveDep(from, to string, now time.Time) error {
	iss, err := s.Get(from)
	if err != nil {
		return err
	}
	r := iss.rec
	d := decoder{line: r.Line}
	els := d.elements(field{key: "dependencies", raw: r.get("dependencies")})
	var kept [][]byte
	found := false
	for i, e := range els {
		if i < len(iss.Deps) && iss.Deps[i].DependsOnID == to {
			found = true
			continue
		}
		kept = append(kept, e)
	}
	if !found {
		return &NotFoundError{ID: from + " → " + to}
	}
	if len(kept) == 0 {
		r.del("dependencies")
	} else {
		r.setRaw("dependencies", joinRaw(kept))
	}
	_, err = s.touch(r, now.UTC().Truncate(time.Second))
	return err
}

func isBlocking(typ string) bool {
	return typ == DepBlocks || typ == DepParentChild || typ == DepConditionalBlocks
}

// pathBetween returns a path of blocking edges from a to b, or nil.
func (s *Store) pathBetween(a, b string) []string {
	prev := map[string]string{a: ""}
	queue := []string{a}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur == b {
			var path []string
			for n := b; n != ""; n = prev[n] {
				path = append([]string{n}, path...)
			}
			return path
		}
		iss := s.lookup(cur)
		ok := iss != nil
		if !ok {
			continue
		}
		for _, d := range iss.Deps {
			if _, seen := prev[d.DependsOnID]; !seen && isBlocking(d.Type) {
				prev[d.DependsOnID] = cur
				queue = append(queue, d.DependsOnID)
			}
		}
	}
	return nil
}

func rawDeps(r *Record) [][]byte {
	d := decoder{line: r.Line}
	return d.elements(field{key: "dependencies", raw: r.get("dependencies")})
}

func appendRaw(els [][]byte, el []byte) []byte { return joinRaw(append(els, el)) }

func joinRaw(els [][]byte) []byte {
	out := []byte{'['}
	for i, e := range els {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return append(out, ']')
}
