package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata"
)

// The tree and search commands run the same backend as `eska ide --stdio`
// in process, for a person at a terminal: a quick look at what the IDE
// would show, in either language.

// openForBrowse opens the project at dir (or the workspace member it lies
// in) and returns the backend with its first project.
func openForBrowse(dir string, stderr io.Writer) (*metadata.Backend, gen.ProjectContext, gen.ProjectInfo, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		fmt.Fprintln(stderr, "eska:", err)
		return nil, gen.ProjectContext{}, gen.ProjectInfo{}, false
	}
	b := metadata.New(nil)
	// A look from the terminal leaves the project as it found it: no cache.
	noCache := false
	info, err := b.Open(gen.OpenParams{Start: metadata.ToPath(abs), Selection: gen.SelectionCurrent{}, DiskCache: &noCache})
	if err != nil {
		fmt.Fprintf(stderr, "eska: cannot open %s: %s\n", abs, describe(err))
		return nil, gen.ProjectContext{}, gen.ProjectInfo{}, false
	}
	p := info.Projects[0]
	return b, gen.ProjectContext{SessionID: info.SessionID, ProjectID: p.ProjectID}, p, true
}

// describe spells a domain error as kind and details.
func describe(err error) string {
	if re, ok := err.(*gen.RPCError); ok {
		if d, ok := re.Data.(gen.DomainErrorData); ok {
			return string(d.Kind) + " " + string(d.Details)
		}
		return re.Message
	}
	return err.Error()
}

func label(l gen.Label, ru bool) string {
	switch v := l.(type) {
	case gen.NameLabel:
		return v.Text
	case gen.KeyLabel:
		if ru {
			return v.Translations.RuRU
		}
		return v.Translations.EnUS
	}
	return "?"
}

func runTree(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tree", flag.ContinueOnError)
	fs.SetOutput(stderr)
	depth := fs.Int("depth", 2, "levels to expand below the root")
	lang := fs.String("lang", "ru", "language of group labels: ru or en")
	all := fs.Bool("all", false, "also show empty root sections")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: eska tree [-depth N] [-lang ru|en] [-all] <project directory>")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		if err == nil {
			fs.Usage()
		}
		return 2
	}
	b, ctx, p, ok := openForBrowse(fs.Arg(0), stderr)
	if !ok {
		return 1
	}
	root, _ := b.Root(ctx)
	ru := *lang != "en"
	fmt.Fprintf(stdout, "%s (%s)\n", label(root.Node.Label, ru), p.Type)
	hide := !*all
	var walk func(id gen.NodeID, level int)
	walk = func(id gen.NodeID, level int) {
		if level > *depth {
			return
		}
		r, err := b.Children(gen.ChildrenParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, Node: id, HideEmptyRootSections: &hide})
		if err != nil {
			fmt.Fprintf(stdout, "%s! %s\n", strings.Repeat("  ", level), describe(err))
			return
		}
		for _, n := range r.Nodes {
			mark := ""
			switch n.State {
			case gen.NodeStateEmpty:
				mark = ""
			case gen.NodeStateError:
				mark = " [error]"
			}
			if len(n.Diagnostics) > 0 {
				mark += fmt.Sprintf(" [%d diagnostic(s): %s]", len(n.Diagnostics), n.Diagnostics[0].Code)
			}
			fmt.Fprintf(stdout, "%s%s%s\n", strings.Repeat("  ", level), label(n.Label, ru), mark)
			walk(n.ID, level+1)
		}
	}
	walk(root.Node.ID, 1)
	return 0
}

func runSearch(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	fs.SetOutput(stderr)
	limit := fs.Int64("limit", 20, "hits to show, 1 to 500")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: eska search [-limit N] <project directory> <text>")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil || fs.NArg() != 2 {
		if err == nil {
			fs.Usage()
		}
		return 2
	}
	if *limit < 1 || *limit > 500 {
		fmt.Fprintln(stderr, "eska search: -limit must be 1 to 500")
		return 2
	}
	b, ctx, _, ok := openForBrowse(fs.Arg(0), stderr)
	if !ok {
		return 1
	}
	if _, err := b.Index(gen.IndexParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, Action: gen.IndexActionStart}); err != nil {
		fmt.Fprintln(stderr, "eska search:", describe(err))
		return 1
	}
	for b.Background() {
	}
	r, err := b.Search(gen.SearchParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, Text: fs.Arg(1), Limit: limit})
	if err != nil {
		fmt.Fprintln(stderr, "eska search:", describe(err))
		return 1
	}
	for _, h := range r.Hits {
		syn := ""
		if len(h.Synonyms) > 0 {
			syn = " — " + h.Synonyms[0].Content
		}
		fmt.Fprintf(stdout, "%-17s %s%s\n", h.Rank, h.ObjectID, syn)
	}
	more := ""
	if r.Truncated {
		more = ", more not shown"
	}
	fmt.Fprintf(stdout, "%d hit(s)%s; index %s: %d objects, %d failed\n", len(r.Hits), more, r.Progress.State, r.Progress.IndexedObjects, r.Progress.FailedDescriptors)
	return 0
}
