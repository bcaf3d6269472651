package mcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memctl/memctl/internal/app"
	"github.com/memctl/memctl/internal/config"
)

// The facts as resources: memctl://facts is every facts file, one content
// each; memctl://facts/{category} is one file. The text is the file's, as
// approved by people; agents read it, and change it only through propose.

const factsURI = "memctl://facts"

func (s *Server) addResources() {
	s.sdk.AddResource(&sdk.Resource{URI: factsURI, Name: "facts", MIMEType: "text/markdown",
		Description: "Every approved facts file (.ledger/facts/*.md), one content per category."},
		s.readFacts)
	s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: factsURI + "/{category}", Name: "facts-category", MIMEType: "text/markdown",
		Description: "One facts file, .ledger/facts/<category>.md (pitfalls, invariants, architecture, preferences, …)."},
		s.readFacts)
}

// readFacts reads memctl://facts or memctl://facts/<category> afresh. A
// category with no file is not found; a disabled facts layer is an error
// with its hint.
func (s *Server) readFacts(_ context.Context, req *sdk.ReadResourceRequest) (res *sdk.ReadResourceResult, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() { // the SDK does not recover: a panic here would end the server
		if r := recover(); r != nil {
			res, err = nil, resourceError(fmt.Errorf("memctl mcp facts: internal error: %v", r))
		}
	}()
	uri := req.Params.URI
	c, err := s.open("facts", clientName(req.Session))
	if err != nil {
		return nil, resourceError(err)
	}
	defer c.sess.Close()
	ws := c.sess.Workspace()
	if !ws.Config.Facts.Enabled {
		return nil, resourceError(&app.LayerOffError{Layer: "facts"})
	}
	cats, err := categories(ws.Path(config.FactsDir))
	if err != nil {
		return nil, resourceError(err)
	}
	if rest, ok := strings.CutPrefix(uri, factsURI+"/"); ok {
		if !slices.Contains(cats, rest) {
			return nil, sdk.ResourceNotFoundError(uri)
		}
		cats = []string{rest}
	} else if uri != factsURI {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	res = &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{}}
	for _, cat := range cats {
		data, err := os.ReadFile(ws.Path(path.Join(config.FactsDir, cat+".md")))
		if err != nil {
			return nil, resourceError(err)
		}
		res.Contents = append(res.Contents, &sdk.ResourceContents{URI: factsURI + "/" + cat, MIMEType: "text/markdown", Text: string(data)})
	}
	return res, nil
}

// categories are the names of the facts files in dir, sorted; none when
// the directory does not exist.
func categories(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".md"); ok && e.Type().IsRegular() && name != "" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// resourceError is err with its hint, for a resource read (which has no
// tool error: the client gets the message).
func resourceError(err error) error {
	if h := app.Hint(err); h != "" {
		return errors.New(err.Error() + "\nhint: " + h)
	}
	return err
}
