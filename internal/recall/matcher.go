package recall

import (
	"context"
	"strings"

	"github.com/memctl/memctl/internal/index"
	"github.com/memctl/memctl/internal/ledger"
	"github.com/memctl/memctl/internal/proposal"
)

// Matcher is proposal.Matcher over the index: it judges each fact of the
// category by its words (proposal.Judge) and by the cosine of its stored
// vector with the proposed text's. The
// index must be up to date. If the dense search fails, it judges by words
// alone and keeps the error in Err.
type Matcher struct {
	Ctx   context.Context
	Index *index.Index
	Err   error
}

// Similar implements proposal.Matcher.
func (m *Matcher) Similar(category, text string, facts []ledger.Fact) []proposal.Similar {
	cos := map[string]float64{}
	if m.Index.CanEmbed() {
		q, err := m.Index.EmbedQuery(m.Ctx, text)
		var hits []index.Hit
		if err == nil {
			hits, err = m.Index.SearchVector(m.Ctx, q, index.Filter{Kinds: []string{index.KindFact}, Category: category}, 500)
		}
		if err != nil {
			m.Err = err
		}
		for _, h := range hits {
			cos[strings.TrimPrefix(h.ID, "fact:")] = h.Score
		}
	}
	var out []proposal.Similar
	p := proposal.Prepare(text)
	for _, f := range facts {
		if f.Category != category {
			continue
		}
		c, ok := cos[f.ID]
		if !ok {
			c = -1
		}
		if s, ok := p.Judge(f, c); ok {
			out = append(out, s)
		}
	}
	return proposal.Top(out)
}
