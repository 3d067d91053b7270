//go:build corpus

package metadata

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// The independent count of a rename: regular expressions over every XML
// and BSL file, written here and sharing nothing with designer/refs. A
// place is (1) a metadata word of the kind, a dot and the name, anywhere;
// (2) for a common module, the name followed by a dot and not preceded by
// a dot or a letter; (3) the object's line in Configuration.xml and its
// own Name; (4) the bare name inside a string literal: of a BSL module,
// or inside quotes in the text of an XML file (tags taken out).

type renameCase struct {
	kind, tag, dir, old, new string
	words                    []string
}

var renameCases = []renameCase{
	{kind: "catalog", tag: "Catalog", dir: "Catalogs", old: "ИдентификаторыОбъектовМетаданных", new: "ИдентификаторыМетаданныхКонфигурации",
		words: typeWords([]string{"Catalog", "Справочник"}, "Catalogs", "Справочники")},
	{kind: "common-module", tag: "CommonModule", dir: "CommonModules", old: "СтроковыеФункцииКлиентСервер", new: "СтроковыеФункцииОбщие",
		words: typeWords([]string{"CommonModule", "ОбщийМодуль"}, "CommonModules", "ОбщиеМодули")},
	{kind: "enum", tag: "Enum", dir: "Enums", old: "ТипыКонтактнойИнформации", new: "ТипыКИ",
		words: typeWords([]string{"Enum", "Перечисление"}, "Enums", "Перечисления")},
}

// typeWords are the class words of a kind with the platform's type
// suffixes, and the collection words.
func typeWords(class []string, coll ...string) []string {
	out := append([]string(nil), coll...)
	suffixes := [][]string{{"", "Ref", "Object", "Manager", "Selection", "List", "TabularSection", "TabularSectionRow"},
		{"", "Ссылка", "Объект", "Менеджер", "Выборка", "Список", "ТабличнаяЧасть", "ТабличнаяЧастьСтрока"}}
	for i, c := range class {
		for _, s := range suffixes[i] {
			out = append(out, c+s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

func wordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// boundary reports whether text has no name character just before at
// (and, with dot, no dot either).
func boundaryBefore(text string, at int, dot bool) bool {
	if at == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(text[:at])
	return !wordRune(r) && !(dot && r == '.')
}

func boundaryAfter(text string, at int) bool {
	if at >= len(text) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(text[at:])
	return !wordRune(r)
}

var (
	bslStringRE = regexp.MustCompile(`//[^\n]*|"(?:[^"\r\n]|""|\r?\n[ \t]*\|)*"?`)
	xmlTagRE    = regexp.MustCompile(`<[^>]*>`)
	xmlQuoteRE  = regexp.MustCompile(`"(?:[^"<]|"")*"`)
	// A query held by an element: a form's dynamic list, a schema's data
	// set. Like a module's query string, every naming inside counts.
	xmlQueryRE = regexp.MustCompile(`(?s)<(?:QueryText|query)>(.*?)</(?:QueryText|query)>`)
)

// independentPlaces returns every place of the case's old name in the
// sources, as "rel:offset".
func independentPlaces(t *testing.T, src string, c renameCase) map[string]bool {
	prefix := regexp.MustCompile(`(?i)(?:` + strings.Join(c.words, "|") + `)\s*\.\s*(` + regexp.QuoteMeta(c.old) + `)`)
	call := regexp.MustCompile(`(?i)(` + regexp.QuoteMeta(c.old) + `)\s*\.`)
	bare := regexp.MustCompile(`(?i)` + regexp.QuoteMeta(c.old))
	out := map[string]bool{}
	filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".xml") || strings.HasSuffix(path, ".bsl")) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		if !strings.Contains(strings.ToLower(text), strings.ToLower(c.old)) {
			return nil
		}
		rel, _ := filepath.Rel(src, path)
		rel = filepath.ToSlash(rel)
		add := func(at int) { out[rel+":"+strconv.Itoa(at)] = true }
		counted := map[int]bool{}
		for _, m := range prefix.FindAllStringSubmatchIndex(text, -1) {
			if boundaryBefore(text, m[0], false) && boundaryAfter(text, m[3]) {
				add(m[2])
				counted[m[2]] = true
			}
		}
		if c.kind == "common-module" {
			for _, m := range call.FindAllStringSubmatchIndex(text, -1) {
				if boundaryBefore(text, m[2], true) && !counted[m[2]] {
					add(m[2])
					counted[m[2]] = true
				}
			}
		}
		if rel == "Configuration.xml" {
			if i := strings.Index(text, "<"+c.tag+">"+c.old+"</"+c.tag+">"); i >= 0 {
				add(i + len(c.tag) + 2)
			}
		}
		if rel == c.dir+"/"+c.old+".xml" {
			if i := strings.Index(text, "<Name>"+c.old+"</Name>"); i >= 0 {
				add(i + len("<Name>"))
			}
		}
		var literals [][]int
		if strings.HasSuffix(rel, ".bsl") {
			for _, m := range bslStringRE.FindAllStringIndex(text, -1) {
				if !strings.HasPrefix(text[m[0]:], "//") {
					literals = append(literals, m)
				}
			}
		} else {
			stripped := xmlTagRE.ReplaceAllStringFunc(text, func(s string) string { return strings.Repeat(" ", len(s)) })
			literals = xmlQuoteRE.FindAllStringIndex(stripped, -1)
			for _, m := range xmlQueryRE.FindAllStringSubmatchIndex(text, -1) {
				literals = append(literals, m[2:4])
			}
		}
		for _, lit := range literals {
			for _, m := range bare.FindAllStringIndex(text[lit[0]:lit[1]], -1) {
				at := lit[0] + m[0]
				if boundaryBefore(text, at, false) && boundaryAfter(text, lit[0]+m[1]) && !counted[at] {
					add(at)
					counted[at] = true
				}
			}
		}
		return nil
	})
	return out
}

// freshIndex opens the tree in a new session, indexes all of it, and
// returns the index failures and the hits of a search for name.
func freshIndex(t *testing.T, dir, name string) (failures []string, hits []gen.Hit) {
	b := New(nil)
	off := false
	info, err := b.Open(gen.OpenParams{Start: ToPath(dir), Selection: gen.SelectionCurrent{}, DiskCache: &off})
	if err != nil {
		t.Fatalf("open: %s", errText(err))
	}
	sid, pid := info.SessionID, info.Projects[0].ProjectID
	if _, err := b.Index(gen.IndexParams{SessionID: sid, ProjectID: pid, Action: gen.IndexActionStart}); err != nil {
		t.Fatal(errText(err))
	}
	for b.Background() {
	}
	for offset := int64(0); ; {
		errs, err := b.IndexErrors(gen.IndexErrorsParams{SessionID: sid, ProjectID: pid, Offset: &offset, Limit: ptr(int64(500))})
		if err != nil {
			t.Fatal(errText(err))
		}
		for _, e := range errs.Errors {
			failures = append(failures, string(e.ObjectID)+" "+e.Code)
		}
		if errs.NextOffset == nil {
			break
		}
		offset = *errs.NextOffset
	}
	sr, err := b.Search(gen.SearchParams{SessionID: sid, ProjectID: pid, Text: name, Limit: ptr(int64(50))})
	if err != nil {
		t.Fatal(errText(err))
	}
	return failures, sr.Hits
}

// On a copy of SSL 3.1 whose support data allows editing: a heavily
// named catalog, common module and enum are renamed. Each plan's places,
// certain and uncertain together, are exactly the independent count's;
// after the renames a fresh session indexes the tree with no new failure
// and finds each object under its new name; no naming of an old name
// remains but the uncertain places; undoing the three renames gives the
// whole tree back, byte for byte. On SSL as exported every rename is
// blocked by the vendor's support.
//
//contract:proves eska-ide-api.editing.rename-places eska-ide-api.editing.rename-plan eska-ide-api.editing.rename-history eska-ide-api.editing.rename-journal
func TestRenameCorpus(t *testing.T) {
	dir := sslCopy(t, "editable")
	src := filepath.Join(dir, "src", "cf")
	orig := treeSum(t, src)
	baseline, _ := freshIndex(t, dir, "x")
	b := New(nil)
	b.Minor, b.Edits, b.SupportPolicy = 11, true, true
	off := false
	info, err := b.Open(gen.OpenParams{Start: ToPath(dir), Selection: gen.SelectionCurrent{}, DiskCache: &off})
	if err != nil {
		t.Fatalf("open: %s", errText(err))
	}
	h := &harness{t: t, b: b, root: dir, sid: info.SessionID, pid: info.Projects[0].ProjectID}
	uncertain := map[string]int{}
	for _, c := range renameCases {
		want := independentPlaces(t, src, c)
		p, err := h.preview(c.kind+":"+c.old, c.new)
		if err != nil {
			t.Fatalf("%s: preview: %s", c.old, errText(err))
		}
		if !p.ApplyAvailable {
			t.Fatalf("%s: issues %+v", c.old, p.Plan.Issues)
		}
		got := map[string]bool{}
		edits := 0
		for _, f := range p.Plan.Files {
			for _, e := range f.Edits {
				got[f.Path+":"+strconv.Itoa(int(e.Range.Start))] = true
				edits++
			}
		}
		for _, u := range p.Plan.Uncertain {
			got[u.Path+":"+strconv.Itoa(int(u.Range.Start))] = true
		}
		if edits != len(want)-len(p.Plan.Uncertain) {
			t.Errorf("%s: %d planned replacements, the independent count %d minus %d uncertain places is %d",
				c.old, edits, len(want), len(p.Plan.Uncertain), len(want)-len(p.Plan.Uncertain))
		}
		for k := range want {
			if !got[k] {
				t.Errorf("%s: the plan misses %s", c.old, k)
			}
		}
		for k := range got {
			if !want[k] {
				t.Errorf("%s: the plan has %s, which the count does not", c.old, k)
			}
		}
		reasons := map[gen.RenameUncertainReason]int{}
		for _, u := range p.Plan.Uncertain {
			reasons[u.Reason]++
		}
		t.Logf("%s → %s: independent count %d; plan: %d replacements in %d files, %d uncertain %v",
			c.old, c.new, len(want), edits, len(p.Plan.Files), len(p.Plan.Uncertain), reasons)
		r, err := h.apply(c.kind+":"+c.old, c.new, p.Plan.Snapshot, true)
		if err != nil {
			t.Fatalf("%s: apply: %s", c.old, errText(err))
		}
		if r.Renamed.To != gen.ObjectID(c.kind+":"+c.new) {
			t.Errorf("%s: renamed %+v", c.old, r.Renamed)
		}
		uncertain[c.old] = len(p.Plan.Uncertain)
	}
	// No naming of an old name remains but the uncertain places.
	for _, c := range renameCases {
		if left := independentPlaces(t, src, c); len(left) != uncertain[c.old] {
			t.Errorf("%s: %d namings remain, %d uncertain places were listed", c.old, len(left), uncertain[c.old])
		}
	}
	after, _ := freshIndex(t, dir, "x")
	if strings.Join(after, "\n") != strings.Join(baseline, "\n") {
		t.Errorf("index failures before the renames:\n%v\nafter:\n%v", baseline, after)
	}
	for _, c := range renameCases {
		_, hits := freshIndex(t, dir, c.new)
		found := false
		for _, hit := range hits {
			found = found || hit.ObjectID == gen.ObjectID(c.kind+":"+c.new) && hit.Rank == gen.HitRankExactName
		}
		if !found {
			t.Errorf("the index does not find %s under its new name", c.new)
		}
	}
	// Undo, newest first, gives the tree back.
	for i := len(renameCases) - 1; i >= 0; i-- {
		c := renameCases[i]
		if _, err := h.undo(c.kind+":"+c.new, false); err != nil {
			t.Fatalf("undo %s: %s", c.new, errText(err))
		}
	}
	fileSums = map[string]fileSum{}
	if got := treeSum(t, src); got != orig {
		t.Errorf("after the undos the tree differs from the original")
	}
	t.Logf("%d index failures before and after; tree %s again after the undos", len(baseline), orig[:12])

	t.Run("locked", func(t *testing.T) {
		dir := sslCopy(t, "locked")
		b := New(nil)
		b.Minor, b.Edits, b.SupportPolicy = 11, true, true
		info, err := b.Open(gen.OpenParams{Start: ToPath(dir), Selection: gen.SelectionCurrent{}, DiskCache: &off})
		if err != nil {
			t.Fatalf("open: %s", errText(err))
		}
		h := &harness{t: t, b: b, root: dir, sid: info.SessionID, pid: info.Projects[0].ProjectID}
		for _, c := range renameCases {
			p, err := h.preview(c.kind+":"+c.old, c.new)
			if err != nil || p.ApplyAvailable || len(p.Plan.Issues) == 0 || p.Plan.Issues[0].Code != "support_locked" {
				t.Errorf("%s: %s %+v", c.old, errText(err), p.Plan.Issues)
			}
			if _, err := h.apply(c.kind+":"+c.old, c.new, p.Plan.Snapshot, true); kindOf(err) != "rename_blocked" {
				t.Errorf("%s: apply %s", c.old, errText(err))
			}
		}
	})
}
