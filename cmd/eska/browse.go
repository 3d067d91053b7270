package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/contractkit/contractkit/designer"
	manifest "github.com/contractkit/contractkit/designer/project"
	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata"
	"github.com/contractkit/contractkit/runtime/strictjson"
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
	// It reads what every version reads and is granted nothing more.
	noCache := false
	info, err := b.Open(gen.OpenParams{Start: metadata.ToPath(abs), Selection: gen.SelectionCurrent{}, DiskCache: &noCache}, gen.Grants{})
	if err != nil {
		openFailed(abs, err, stderr)
		return nil, gen.ProjectContext{}, gen.ProjectInfo{}, false
	}
	p := info.Projects[0]
	return b, gen.ProjectContext{SessionID: info.SessionID, ProjectID: p.ProjectID}, p, true
}

// openFailed says why the project at abs did not open. The manifest's own
// reader says what is wrong and where; the protocol's error carries only
// its reason and path.
func openFailed(abs string, err error, stderr io.Writer) {
	var oe *manifest.OpenError
	if _, merr := manifest.Open(abs, gen.SelectionCurrent{}); errors.As(merr, &oe) {
		fmt.Fprintf(stderr, "eska: %s\n", manifestError(oe))
	} else {
		fmt.Fprintf(stderr, "eska: cannot open %s: %s\n", abs, describe(err))
	}
}

// lineColumn is how the manifest reader places a problem in its file.
var lineColumn = regexp.MustCompile(`^line (\d+)(?:, column (\d+))?: `)

// manifestError spells an open error as file:line[:column]: message, the
// form editors and terminals link to the place.
func manifestError(oe *manifest.OpenError) string {
	if oe.Err == nil {
		return oe.Path + ": " + string(oe.Reason)
	}
	msg := oe.Err.Error()
	m := lineColumn.FindStringSubmatch(msg)
	if m == nil {
		return oe.Path + ": " + msg
	}
	where := oe.Path + ":" + m[1]
	if m[2] != "" {
		where += ":" + m[2]
	}
	return where + ": " + msg[len(m[0]):]
}

// describe spells a domain error as kind and details.
func describe(err error) string {
	if re, ok := err.(*gen.RPCError); ok {
		if d, ok := re.Data.(gen.DomainErrorData); ok {
			return string(d.Kind) + " " + string(d.Details)
		}
		if d, ok := re.Data.(gen.ErrorDetail); ok {
			// Invalid params: the message is the bare literal; the place and
			// the reason are in the data.
			if d.Pointer != nil {
				return re.Message + ": " + strictjson.DisplayPointer(*d.Pointer) + ": " + d.Reason
			}
			return re.Message + ": " + d.Reason
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
	depth := fs.Int("depth", 2, "levels to expand below the root, 0 or more")
	lang := fs.String("lang", "", "language of group labels: ru or en (default: the configuration's own)")
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
	if *depth < 0 {
		fmt.Fprintf(stderr, "eska tree: -depth %d: the depth is 0 or more\n", *depth)
		return 2
	}
	if *lang != "" && *lang != "ru" && *lang != "en" {
		fmt.Fprintf(stderr, "eska tree: -lang %q: the labels are in ru or en\n", *lang)
		return 2
	}
	b, ctx, p, ok := openForBrowse(fs.Arg(0), stderr)
	if !ok {
		return 1
	}
	root, _ := b.Root(ctx)
	if *lang == "" {
		*lang = configurationLanguage(b, ctx, p)
	}
	ru := *lang == "ru"
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
	limit := fs.Int64("limit", 20, fmt.Sprintf("hits to show, 1 to %d", gen.MaxSearchLimit))
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
	if *limit < 1 || *limit > gen.MaxSearchLimit {
		fmt.Fprintf(stderr, "eska search: -limit must be 1 to %d\n", gen.MaxSearchLimit)
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

// configurationLanguage is the language the tree's labels default to: the
// code of the configuration's DefaultLanguage (ru for Russian, en for any
// other, since labels exist in these two), else the language of the
// root's first synonym for an external object, else ru.
func configurationLanguage(b *metadata.Backend, ctx gen.ProjectContext, p gen.ProjectInfo) string {
	pick := func(code string) string {
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(code)), "ru") {
			return "ru"
		}
		return "en"
	}
	rootID := p.Root.(gen.ObjectNodeID).ObjectID
	props, err := b.Properties(gen.ObjectParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, Generation: ctx.Generation, ObjectID: rootID})
	if err != nil {
		return "ru"
	}
	for _, prop := range props.Properties {
		if prop.Key.Name != "DefaultLanguage" {
			continue
		}
		tv, ok := prop.Value.(gen.TextValue)
		if !ok {
			break
		}
		// The value names a language object: Language.English.
		tag, name, found := strings.Cut(strings.TrimSpace(tv.Text), ".")
		info, known := designer.KindOfTag(tag)
		if !found || !known {
			break
		}
		lp, err := b.Properties(gen.ObjectParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, Generation: ctx.Generation,
			ObjectID: gen.ObjectID(designer.ObjectID("", info.Kind, name))})
		if err != nil {
			break
		}
		for _, l := range lp.Properties {
			if tv, ok := l.Value.(gen.TextValue); ok && l.Key.Name == "LanguageCode" && strings.TrimSpace(tv.Text) != "" {
				return pick(tv.Text)
			}
		}
		break
	}
	if got, err := b.Get(gen.ObjectParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, Generation: ctx.Generation, ObjectID: rootID}); err == nil &&
		len(got.Object.Synonyms) > 0 && got.Object.Synonyms[0].Language != "" {
		return pick(got.Object.Synonyms[0].Language)
	}
	return "ru"
}
