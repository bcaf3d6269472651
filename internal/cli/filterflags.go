package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/memctl/memctl/internal/tasks"
)

// filterFlags are bd's issue filters shared by list, count and search.
type filterFlags struct {
	status, typ, assignee, priority, priorityMin, priorityMax string
	labels, labelAny                                          []string
	noAssignee, noLabels, emptyDescription                    bool
	ids, titleContains, descContains, notesContains           string
	createdAfter, createdBefore, updatedAfter, updatedBefore  string
	closedAfter, closedBefore                                 string
}

// register adds the filters to f, bd's names and shorthands.
func (ff *filterFlags) register(f *pflag.FlagSet) {
	f.StringVarP(&ff.status, "status", "s", "", "only `statuses` (comma-separated)")
	f.StringVarP(&ff.typ, "type", "t", "", "only this `type`")
	f.StringSliceVarP(&ff.labels, "label", "l", nil, "only tasks with every `label`")
	f.StringSliceVar(&ff.labelAny, "label-any", nil, "only tasks with at least one `label`")
	f.BoolVar(&ff.noLabels, "no-labels", false, "only tasks without labels")
	f.StringVarP(&ff.assignee, "assignee", "a", "", "only tasks assigned to `name`")
	f.BoolVar(&ff.noAssignee, "no-assignee", false, "only unassigned tasks")
	f.StringVarP(&ff.priority, "priority", "p", "", "only this priority (0–4 or P0–P4)")
	f.StringVar(&ff.priorityMin, "priority-min", "", "only priorities from this one (0–4 or P0–P4)")
	f.StringVar(&ff.priorityMax, "priority-max", "", "only priorities up to this one (0–4 or P0–P4)")
	f.StringVar(&ff.ids, "id", "", "only these `ids` (comma-separated)")
	f.StringVar(&ff.titleContains, "title-contains", "", "only titles holding `text` (any case)")
	f.StringVar(&ff.descContains, "desc-contains", "", "only descriptions holding `text` (any case)")
	f.StringVar(&ff.notesContains, "notes-contains", "", "only notes holding `text` (any case)")
	f.BoolVar(&ff.emptyDescription, "empty-description", false, "only tasks without a description")
	for _, d := range []struct {
		name string
		v    *string
	}{{"created-after", &ff.createdAfter}, {"created-before", &ff.createdBefore}, {"updated-after", &ff.updatedAfter},
		{"updated-before", &ff.updatedBefore}, {"closed-after", &ff.closedAfter}, {"closed-before", &ff.closedBefore}} {
		what, side, _ := strings.Cut(d.name, "-")
		f.StringVar(d.v, d.name, "", fmt.Sprintf("only tasks %s %s this `time` (YYYY-MM-DD or RFC 3339)", what, side))
	}
}

// filter builds the tasks.Filter the flags ask for; bad values are usage
// errors naming the flag.
func (ff *filterFlags) filter(now time.Time) (tasks.Filter, error) {
	f := tasks.NewFilter()
	f.Type, f.Assignee, f.NoAssignee = ff.typ, ff.assignee, ff.noAssignee
	f.Labels, f.LabelAny, f.NoLabels = ff.labels, ff.labelAny, ff.noLabels
	f.TitleContains, f.DescContains, f.NotesContains, f.EmptyDescription = ff.titleContains, ff.descContains, ff.notesContains, ff.emptyDescription
	for _, s := range strings.Split(ff.status, ",") {
		if s = strings.TrimSpace(s); s != "" {
			if !tasks.ValidStatus(s) {
				return f, usagef(fmt.Errorf("--status %q: unknown status", s))
			}
			f.Statuses = append(f.Statuses, s)
		}
	}
	for _, id := range strings.Split(ff.ids, ",") {
		if id = strings.TrimSpace(id); id != "" {
			f.IDs = append(f.IDs, id)
		}
	}
	for _, p := range []struct {
		name, v string
		dst     *int
	}{{"priority", ff.priority, &f.Priority}, {"priority-min", ff.priorityMin, &f.PriorityMin}, {"priority-max", ff.priorityMax, &f.PriorityMax}} {
		if p.v == "" {
			continue
		}
		n, err := parsePriority(p.v)
		if err != nil {
			return f, usagef(fmt.Errorf("--%s %q: use 0–4 or P0–P4 (0 is critical)", p.name, p.v))
		}
		*p.dst = n
	}
	for _, d := range []struct {
		name, v string
		dst     *time.Time
	}{{"created-after", ff.createdAfter, &f.CreatedAfter}, {"created-before", ff.createdBefore, &f.CreatedBefore},
		{"updated-after", ff.updatedAfter, &f.UpdatedAfter}, {"updated-before", ff.updatedBefore, &f.UpdatedBefore},
		{"closed-after", ff.closedAfter, &f.ClosedAfter}, {"closed-before", ff.closedBefore, &f.ClosedBefore}} {
		if d.v == "" {
			continue
		}
		t, err := parseWhen(d.name, d.v, now, true)
		if err != nil {
			return f, err
		}
		*d.dst = t
	}
	return f, nil
}
