package docscheck

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdown is shared because goldmark initialises its parser once (guarded by
// a sync.Once) and keeps per-document state in a fresh context, so concurrent
// Parse calls are safe.
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithParagraphTransformers(
		// Below the table transformer's 200, so it runs first and sees the
		// paragraph before the delimiter row is consumed.
		util.Prioritized(lineRecorder{}, 150),
	)),
)

// nextLineKey holds a map from the start offset of a paragraph line to the
// segment of the line after it in the same paragraph.
var nextLineKey = parser.NewContextKey()

// lineRecorder remembers paragraph lines. goldmark's table AST keeps no trace
// of the delimiter row and pads a header that is shorter than it, so the
// delimiter row has to be captured before the table transformer runs.
type lineRecorder struct{}

// Transform records; it leaves the paragraph as it is.
func (lineRecorder) Transform(node *ast.Paragraph, _ text.Reader, pc parser.Context) {
	next, _ := pc.Get(nextLineKey).(map[int]text.Segment)
	if next == nil {
		next = make(map[int]text.Segment)
		pc.Set(nextLineKey, next)
	}
	lines := node.Lines()
	for i := 1; i < lines.Len(); i++ {
		next[lines.At(i-1).Start] = lines.At(i)
	}
}

// Parse parses one page and reports the defects visible within it: duplicate,
// empty or malformed anchor ids, <a> tags that cannot be read, table rows
// whose cell count differs from the header's, and delimiter rows whose cell
// count differs from the header's. The last covers both of goldmark's silent
// reactions: it pads a header shorter than the delimiter row, and it renders
// no table at all, just text, when the header is longer.
//
// path is the page's slash-separated path relative to the repository root; it
// is stored in the Page and used in problems.
//
// Parse never panics: an unexpected failure inside the parser is reported as
// a problem, because a docs test should fail with a message rather than crash.
func Parse(path string, src []byte) (page *Page, problems []Problem) {
	defer func() {
		if r := recover(); r != nil {
			page = &Page{Path: path}
			problems = []Problem{{Path: path, Msg: fmt.Sprintf("internal error while parsing the page: %v", r)}}
		}
	}()
	return parse(path, src)
}

// pageParser carries the state of one walk over the goldmark AST.
type pageParser struct {
	page      *Page
	src       []byte
	lineStart []int // byte offset at which each line starts
	problems  []Problem
	firstSeen map[string]int // anchor id -> line of its first declaration

	// heading is the heading being walked, if any; anchors and text met
	// while it is open belong to it.
	heading     *Heading
	headingText strings.Builder

	nextLine map[int]text.Segment // from lineRecorder
}

// parse does the work of Parse without the recover, so that the fuzz target
// sees genuine panics.
func parse(path string, src []byte) (*Page, []Problem) {
	p := &pageParser{
		page:      &Page{Path: path},
		src:       src,
		firstSeen: make(map[string]int),
	}
	p.lineStart = append(p.lineStart, 0)
	for i, c := range src {
		if c == '\n' {
			p.lineStart = append(p.lineStart, i+1)
		}
	}
	ctx := parser.NewContext()
	doc := markdown.Parser().Parse(text.NewReader(src), parser.WithContext(ctx))
	p.nextLine, _ = ctx.Get(nextLineKey).(map[int]text.Segment)
	_ = ast.Walk(doc, p.visit)
	sortProblems(p.problems)
	return p.page, p.problems
}

// lineOf maps a byte offset to a 1-based line; unknown positions map to 0.
func (p *pageParser) lineOf(off int) int {
	if off < 0 || off > len(p.src) {
		return 0
	}
	return sort.Search(len(p.lineStart), func(i int) bool { return p.lineStart[i] > off })
}

func (p *pageParser) report(line int, format string, args ...any) {
	p.problems = append(p.problems, Problem{Path: p.page.Path, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (p *pageParser) visit(n ast.Node, entering bool) (ast.WalkStatus, error) {
	switch n := n.(type) {
	case *ast.Heading:
		if entering {
			p.heading = &Heading{Level: n.Level, Line: p.lineOf(blockPos(n))}
			p.headingText.Reset()
		} else if p.heading != nil {
			p.heading.Text = strings.Join(strings.Fields(p.headingText.String()), " ")
			p.page.Headings = append(p.page.Headings, *p.heading)
			p.heading = nil
		}
	case *ast.Text:
		if entering && p.heading != nil {
			p.headingText.Write(n.Value(p.src))
			if n.SoftLineBreak() || n.HardLineBreak() {
				p.headingText.WriteByte(' ')
			}
		}
	case *ast.String:
		if entering && p.heading != nil {
			p.headingText.Write(n.Value)
		}
	case *ast.RawHTML:
		if entering && n.Segments != nil {
			p.html(segmentList(n.Segments), n.Pos())
		}
	case *ast.HTMLBlock:
		if entering {
			segs := segmentList(n.Lines())
			if n.HasClosure() {
				segs = append(segs, n.ClosureLine)
			}
			p.html(segs, n.Pos())
		}
	case *ast.Link:
		if entering {
			p.addLink(resolveReferences(n.Destination), n.Pos())
		}
	case *ast.Image:
		if entering {
			p.addLink(resolveReferences(n.Destination), n.Pos())
		}
	case *ast.AutoLink:
		if entering {
			dest := string(n.URL(p.src))
			if n.AutoLinkType == ast.AutoLinkEmail && !strings.Contains(dest, ":") {
				dest = "mailto:" + dest
			}
			p.addLink(dest, n.Pos())
		}
	case *ast.FencedCodeBlock:
		if entering {
			info := ""
			if n.Info != nil {
				info = strings.TrimSpace(string(n.Info.Value(p.src)))
			}
			p.addCode(info, n.Lines(), blockPos(n))
		}
	case *ast.CodeBlock:
		if entering {
			p.addCode("", n.Lines(), blockPos(n))
		}
	case *ast.Paragraph:
		if entering {
			p.checkRejectedTable(n.Lines())
		}
	case *ast.TextBlock:
		// Tight list items hold their paragraphs as text blocks.
		if entering {
			p.checkRejectedTable(n.Lines())
		}
	case *east.Table:
		if entering {
			p.addTable(n)
		}
	}
	return ast.WalkContinue, nil
}

// blockPos prefers the position goldmark recorded when opening the block and
// falls back to the first content line.
func blockPos(n ast.Node) int {
	if pos := n.Pos(); pos >= 0 {
		return pos
	}
	if n.Type() == ast.TypeBlock {
		if l := n.Lines(); l != nil && l.Len() > 0 {
			return l.At(0).Start
		}
	}
	return -1
}

func segmentList(s *text.Segments) []text.Segment {
	if s == nil {
		return nil
	}
	out := make([]text.Segment, 0, s.Len())
	for i := 0; i < s.Len(); i++ {
		out = append(out, s.At(i))
	}
	return out
}

// resolveReferences turns a markdown link destination into what the HTML
// renderer emits (backslash escapes and character references resolved, in
// goldmark's order), so the checked path is the one a reader would follow.
func resolveReferences(dest []byte) string {
	d := util.UnescapePunctuations(dest)
	d = util.ResolveNumericReferences(d)
	d = util.ResolveEntityNames(d)
	return string(d)
}

func (p *pageParser) addLink(dest string, pos int) {
	p.page.Links = append(p.page.Links, Link{Dest: dest, Line: p.lineOf(pos)})
}

func (p *pageParser) addCode(info string, lines *text.Segments, pos int) {
	var b strings.Builder
	for _, s := range segmentList(lines) {
		b.Write(s.Value(p.src))
	}
	p.page.Code = append(p.page.Code, CodeBlock{Info: info, Text: b.String(), Line: p.lineOf(pos)})
}

// html scans raw HTML (one inline tag, or a whole HTML block) for anchors and
// links. Segments are concatenated so a tag split over lines is still seen;
// offs remembers where each byte came from, for line numbers.
func (p *pageParser) html(segs []text.Segment, fallback int) {
	var buf []byte
	var offs []int
	for _, s := range segs {
		start, stop := max(s.Start, 0), min(s.Stop, len(p.src))
		for i := start; i < stop; i++ {
			buf = append(buf, p.src[i])
			offs = append(offs, i)
		}
	}
	for _, tag := range scanTags(buf) {
		pos := fallback
		if tag.start >= 0 && tag.start < len(offs) {
			pos = offs[tag.start]
		}
		line := p.lineOf(pos)
		if tag.err != "" {
			if tag.name == "a" {
				p.report(line, "malformed <a> tag: %s", tag.err)
			}
			continue
		}
		var ids []string
		if v, ok := tag.attr("id"); ok {
			ids = append(ids, v)
		}
		if tag.name == "a" {
			// <a id="x" name="x"> is one target, not a duplicate.
			if v, ok := tag.attr("name"); ok && (len(ids) == 0 || ids[0] != v) {
				ids = append(ids, v)
			}
			if v, ok := tag.attr("href"); ok {
				p.page.Links = append(p.page.Links, Link{Dest: v, Line: line})
			}
		}
		for _, id := range ids {
			p.addAnchor(id, line)
		}
	}
}

func (p *pageParser) addAnchor(id string, line int) {
	if id == "" {
		p.report(line, "empty anchor id")
		return
	}
	if r, bad := invalidIDRune(id); bad {
		p.report(line, "anchor id %q contains %q; ids may contain only letters, digits, '.', '-', '_', '/' and '$'", id, r)
	}
	if first, dup := p.firstSeen[id]; dup {
		p.report(line, "duplicate anchor id %q (first declared on line %d)", id, first)
	} else {
		p.firstSeen[id] = line
	}
	p.page.Anchors = append(p.page.Anchors, Anchor{ID: id, Line: line})
	if p.heading != nil {
		p.heading.Anchors = append(p.heading.Anchors, id)
	}
}

func invalidIDRune(id string) (rune, bool) {
	for _, r := range id {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r):
		case r == '.', r == '-', r == '_', r == '/', r == '$':
		default:
			return r, true
		}
	}
	return 0, false
}

// addTable records a table goldmark recognised. Cell counts come from the
// source lines because goldmark pads short rows and drops surplus cells, which
// would hide exactly the defects we are looking for.
func (p *pageParser) addTable(t *east.Table) {
	var tab Table
	for c := t.FirstChild(); c != nil; c = c.NextSibling() {
		switch r := c.(type) {
		case *east.TableHeader:
			tab.Line = p.lineOf(r.Pos())
			tab.Columns = countCells(p.restOfLine(r.Pos()))
			if delim, ok := p.nextLine[r.Pos()]; ok {
				// goldmark pads a header with fewer cells than the delimiter
				// row, so this mismatch still yields a table.
				if n := countCells(delim.Value(p.src)); n != tab.Columns {
					p.report(p.lineOf(delim.Start), "table delimiter row has %s, but the header row (line %d) has %d", cells(n), tab.Line, tab.Columns)
				}
			}
		case *east.TableRow:
			row := TableRow{Line: p.lineOf(r.Pos()), Cells: countCells(p.restOfLine(r.Pos()))}
			if row.Cells != tab.Columns {
				p.report(row.Line, "table row has %s, but the header row (line %d) has %d", cells(row.Cells), tab.Line, tab.Columns)
			}
			tab.Rows = append(tab.Rows, row)
		}
	}
	p.page.Tables = append(p.page.Tables, tab)
}

// restOfLine returns the source from off to the end of its line. Table rows
// are positioned after any container prefix ("> ", list indentation), so this
// is the row exactly as written.
func (p *pageParser) restOfLine(off int) []byte {
	if off < 0 || off > len(p.src) {
		return nil
	}
	line := p.src[off:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	return line
}

// checkRejectedTable looks for a table goldmark refused. The GFM table
// transformer runs on every paragraph and gives up, leaving a paragraph, only
// when the header row has more cells than the delimiter row; so a paragraph
// that still holds a delimiter row below its first line is a table rendered
// as a run of text. Like goldmark, only the first delimiter-shaped line counts.
func (p *pageParser) checkRejectedTable(lines *text.Segments) {
	segs := segmentList(lines)
	for i := 1; i < len(segs); i++ {
		delim, ok := delimiterCells(segs[i].Value(p.src))
		if !ok {
			continue
		}
		head := countCells(segs[i-1].Value(p.src))
		headLine := p.lineOf(segs[i-1].Start)
		line := p.lineOf(segs[i].Start)
		if head != delim {
			p.report(line, "table delimiter row has %s, but the header row (line %d) has %d, so goldmark renders no table", cells(delim), headLine, head)
		} else {
			// Not expected: goldmark counts at most as many header cells as
			// the source has. Reported anyway, since a table is lost.
			p.report(line, "goldmark renders no table although the delimiter row and the header row (line %d) both have %d cells", headLine, delim)
		}
		return
	}
}

func cells(n int) string {
	if n == 1 {
		return "1 cell"
	}
	return fmt.Sprintf("%d cells", n)
}

// countCells splits a raw table row on pipes not preceded by a backslash.
// GFM requires pipes inside code spans to be escaped as well, so code spans
// need no special treatment. A leading and a trailing pipe are borders, not
// separators.
func countCells(row []byte) int {
	s := bytes.TrimSpace(row)
	if len(s) == 0 {
		return 0
	}
	cells := 1
	for i, c := range s {
		if c == '|' && (i == 0 || s[i-1] != '\\') {
			cells++
		}
	}
	if s[0] == '|' {
		cells--
	}
	if last := len(s) - 1; s[last] == '|' && (last == 0 || s[last-1] != '\\') {
		cells--
	}
	return cells
}

// delimiterCells reports whether line is a GFM delimiter row as goldmark
// recognises one, and how many cells it has.
func delimiterCells(line []byte) (int, bool) {
	indent := 0
	for _, c := range line {
		if c == ' ' {
			indent++
		} else if c == '\t' {
			indent += 4 - indent%4
		} else {
			break
		}
	}
	if indent > 3 {
		return 0, false
	}
	onlyDashes := true
	for _, c := range line {
		if c != '-' {
			onlyDashes = false
		}
		if !isHTMLSpace(c) && c != '-' && c != '|' && c != ':' {
			return 0, false
		}
	}
	if onlyDashes {
		return 0, false
	}
	cols := bytes.Split(line, []byte{'|'})
	if len(bytes.TrimSpace(cols[0])) == 0 {
		cols = cols[1:]
	}
	if n := len(cols); n > 0 && len(bytes.TrimSpace(cols[n-1])) == 0 {
		cols = cols[:n-1]
	}
	if len(cols) == 0 {
		return 0, false
	}
	for _, col := range cols {
		if !isDelimiterCell(bytes.TrimSpace(col)) {
			return 0, false
		}
	}
	return len(cols), true
}

// isDelimiterCell matches :?-+:? .
func isDelimiterCell(c []byte) bool {
	c = bytes.TrimPrefix(c, []byte{':'})
	c = bytes.TrimSuffix(c, []byte{':'})
	if len(c) == 0 {
		return false
	}
	for _, b := range c {
		if b != '-' {
			return false
		}
	}
	return true
}
