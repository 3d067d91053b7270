package metadata

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	gen "github.com/contractkit/contractkit/generated/ide"
)

func (h *harness) index(action gen.IndexAction) gen.Progress {
	h.t.Helper()
	r, err := h.b.Index(gen.IndexParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, Action: action})
	if err != nil {
		h.t.Fatalf("index %s: %s", action, errText(err))
	}
	return r.Progress
}

func (h *harness) search(text string, limit int64, lang *string) gen.SearchResult {
	h.t.Helper()
	p := gen.SearchParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, Text: text, SynonymLanguage: lang}
	if limit > 0 {
		p.Limit = &limit
	}
	r, err := h.b.Search(p)
	if err != nil {
		h.t.Fatalf("search %q: %s", text, errText(err))
	}
	return r
}

func hitList(r gen.SearchResult) []string {
	var out []string
	for _, h := range r.Hits {
		out = append(out, string(h.ObjectID)+" "+string(h.Rank))
	}
	return out
}

func (h *harness) progressNotes() []gen.Progress {
	var out []gen.Progress
	for _, n := range h.notes {
		if n.method == gen.NotificationMetadataIndexProgress {
			p, err := gen.DecodeIndexProgressParams(n.params)
			if err != nil {
				h.t.Fatalf("progress notification does not decode: %v", err)
			}
			out = append(out, p.Progress)
		}
	}
	return out
}

// Search never starts the index: before it runs there are no hits, and
// the progress says so.
//
//contract:proves eska-ide-api.method.metadata-search
func TestSearchBeforeIndex(t *testing.T) {
	h := openConfiguration(t)
	r := h.search("Товары", 0, nil)
	if len(r.Hits) != 0 || r.Progress.State != gen.ProgressStateNotStarted {
		t.Errorf("before indexing: %v %+v", hitList(r), r.Progress)
	}
	if len(h.notes) != 0 {
		t.Errorf("search sent notifications: %v", h.notes)
	}
}

// The index is built one descriptor per background step, reports its
// state changes, collects failures in ObjectId order, and search then
// ranks exact → prefix → substring, names before synonyms.
//
//contract:proves eska-ide-api.scheduling.indexing eska-ide-api.limits.paging eska-ide-api.default.search-results eska-ide-api.default.index-errors-page
//contract:proves eska-ide-api.method.metadata-index eska-ide-api.method.metadata-index-errors eska-ide-api.method.metadata-reveal eska-ide-api.method.metadata-search
func TestIndexAndSearch(t *testing.T) {
	h := openConfiguration(t)
	h.b.progressEvery = time.Hour // only state changes are sent
	p := h.index(gen.IndexActionStart)
	if p.State != gen.ProgressStateBuilding || p.PendingDescriptors != 1 {
		t.Fatalf("after start: %+v", p)
	}
	steps := 0
	for h.b.Background() {
		steps++
	}
	// The root, the catalog with its form and template, the broken
	// document, both common modules, the picture, the enum, the
	// language, the numerator and the missing catalog.
	if steps != 12 {
		t.Errorf("%d background steps, want one per descriptor (12)", steps)
	}
	final := h.index(gen.IndexActionStatus)
	if final.State != gen.ProgressStateIncomplete || final.FailedDescriptors != 4 || final.PendingDescriptors != 0 {
		t.Errorf("final progress %+v", final)
	}
	notes := h.progressNotes()
	if len(notes) != 2 || notes[0].State != gen.ProgressStateBuilding || notes[1].State != gen.ProgressStateIncomplete {
		t.Errorf("progress notifications %+v", notes)
	}
	errs, err := h.b.IndexErrors(gen.IndexErrorsParams{SessionID: h.sid, ProjectID: h.pid})
	if err != nil {
		t.Fatal(errText(err))
	}
	var got []string
	for _, e := range errs.Errors {
		got = append(got, string(e.ObjectID)+" "+e.Code)
	}
	// Read with diagnostics (the root's unknown element, the enum's
	// repeated value) is not fully indexed either.
	if !reflect.DeepEqual(got, []string{"catalog:Нет source_missing", "configuration:Конф unsupported_metadata",
		"document:Заказ xml_invalid", "enum:Статусы unsupported_metadata"}) || errs.NextOffset != nil {
		t.Errorf("index errors %v next %v", got, errs.NextOffset)
	}
	one := int64(1)
	page, _ := h.b.IndexErrors(gen.IndexErrorsParams{SessionID: h.sid, ProjectID: h.pid, Limit: &one})
	if len(page.Errors) != 1 || page.NextOffset == nil || *page.NextOffset != 1 {
		t.Errorf("first page of one: %+v", page)
	}
	if !strings.Contains(string(errs.Errors[3].Details), `"code":"duplicate_identity"`) {
		t.Errorf("unsupported_metadata details %s", errs.Errors[3].Details)
	}
	far := int64(10)
	page, _ = h.b.IndexErrors(gen.IndexErrorsParams{SessionID: h.sid, ProjectID: h.pid, Offset: &far})
	if len(page.Errors) != 0 || page.NextOffset != nil {
		t.Errorf("offset past the end: %+v", page)
	}

	r := h.search("  ТОВАРЫ ", 0, nil)
	if got := hitList(r); !reflect.DeepEqual(got, []string{"catalog:Товары exact_name"}) {
		t.Errorf("exact name, case and spaces ignored: %v", got)
	}
	if r.Hits[0].Node == nil || len(r.Hits[0].Ancestry) != 3 || nodeKey(r.Hits[0].Ancestry[1]) != "g:configuration:Конф#catalog" {
		t.Errorf("hit ancestry %+v", r.Hits[0].Ancestry)
	}
	r = h.search("нов", 0, nil)
	if got := hitList(r); len(got) == 0 || got[0] != "enum:Статусы/enum-value:Новый prefix_name" {
		t.Errorf("prefix over names first: %v", got)
	}
	ranks := map[string]string{}
	for _, hh := range r.Hits {
		ranks[string(hh.ObjectID)] = string(hh.Rank)
	}
	if ranks["catalog:Товары/predefined-item:Основной"] != "substring_name" || len(ranks) != 2 {
		t.Errorf("ranks %v", ranks)
	}
	if got := hitList(h.search("номенк", 0, nil)); !reflect.DeepEqual(got, []string{"catalog:Товары prefix_synonym"}) {
		t.Errorf("prefix of a synonym: %v", got)
	}
	if got := hitList(h.search("товаров", 0, nil)); !reflect.DeepEqual(got, []string{"catalog:Товары substring_synonym"}) {
		t.Errorf("substring of a synonym: %v", got)
	}
	// Predefined descriptions are searchable as synonyms of language und.
	und := "und"
	r = h.search("вложенный элемент", 0, &und)
	if got := hitList(r); !reflect.DeepEqual(got, []string{"catalog:Товары/predefined-item:Основной/predefined-item:Вложенный exact_synonym"}) {
		t.Errorf("predefined description: %v", got)
	}
	en := "en"
	if got := hitList(h.search("номенклатура", 0, &en)); len(got) != 0 {
		t.Errorf("synonymLanguage en still matched a ru synonym: %v", got)
	}
	if got := hitList(h.search("goods", 0, &en)); !reflect.DeepEqual(got, []string{"catalog:Товары exact_synonym"}) {
		t.Errorf("en synonym: %v", got)
	}
	r = h.search("а", 2, nil)
	if len(r.Hits) != 2 || !r.Truncated {
		t.Errorf("limit 2: %d hits truncated %v", len(r.Hits), r.Truncated)
	}
	if r := h.search("   ", 0, nil); len(r.Hits) != 0 || r.Truncated {
		t.Errorf("empty query: %+v", r)
	}
	// Virtual groups and modules are never results.
	for _, hh := range h.search("модул", 500, nil).Hits {
		if _, ok := hh.Node.(gen.ObjectNodeID); !ok {
			t.Errorf("non-object hit %+v", hh)
		}
	}
	// A hit can be revealed without expanding anything first.
	rv, err := h.b.Reveal(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: "catalog:Товары/predefined-item:Основной/predefined-item:Вложенный"})
	if err != nil {
		t.Fatal(errText(err))
	}
	var anc []string
	for _, n := range rv.Ancestry {
		anc = append(anc, nodeKey(n))
	}
	wantAnc := []string{"o:configuration:Конф", "g:configuration:Конф#catalog", "o:catalog:Товары", "g:catalog:Товары#predefined-item",
		"o:catalog:Товары/predefined-item:Основной", "o:catalog:Товары/predefined-item:Основной/predefined-item:Вложенный"}
	if !reflect.DeepEqual(anc, wantAnc) {
		t.Errorf("reveal\n got %v\nwant %v", anc, wantAnc)
	}
	rv2, _ := h.b.Reveal(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: "common-module:Общий"})
	if len(rv2.Ancestry) != 4 || nodeKey(rv2.Ancestry[1]) != "g:configuration:Конф#common" {
		t.Errorf("common module ancestry %v", rv2.Ancestry)
	}
}

// cancel pauses between descriptors, resume continues; both changes of
// state are reported.
//
//contract:proves eska-ide-api.cancellation.indexing
//contract:proves eska-ide-api.method.metadata-index eska-ide-api.notification.metadata-index-progress
func TestIndexCancelResume(t *testing.T) {
	h := openConfiguration(t)
	h.b.progressEvery = time.Hour
	h.index(gen.IndexActionStart)
	h.b.Background()
	if p := h.index(gen.IndexActionCancel); p.State != gen.ProgressStateCancelled {
		t.Fatalf("after cancel %+v", p)
	}
	if h.b.Background() {
		t.Errorf("a cancelled index still did work")
	}
	if p := h.index(gen.IndexActionResume); p.State != gen.ProgressStateBuilding {
		t.Fatalf("after resume %+v", p)
	}
	for h.b.Background() {
	}
	var states []string
	for _, p := range h.progressNotes() {
		states = append(states, string(p.State))
	}
	if !reflect.DeepEqual(states, []string{"building", "cancelled", "building", "incomplete"}) {
		t.Errorf("progress states %v", states)
	}
}

// Counter changes are reported at most once per interval; state changes
// always.
//
//contract:proves eska-ide-api.scheduling.progress
//contract:proves eska-ide-api.notification.metadata-index-progress
func TestProgressThrottle(t *testing.T) {
	h := openConfiguration(t)
	h.b.progressEvery = 0
	h.index(gen.IndexActionStart)
	for h.b.Background() {
	}
	every := len(h.progressNotes())
	h2 := openConfiguration(t)
	h2.b.progressEvery = time.Hour
	h2.index(gen.IndexActionStart)
	for h2.b.Background() {
	}
	if every < 10 || len(h2.progressNotes()) != 2 {
		t.Errorf("unthrottled %d notifications, throttled %d (want ≥10 and 2)", every, len(h2.progressNotes()))
	}
}

// Two projects of a workspace are indexed round-robin, one descriptor each
// in turn.
//
//contract:proves eska-ide-api.scheduling.roles
func TestRoundRobin(t *testing.T) {
	files := map[string]string{"eska.toml": "[workspace]\nmembers = [\"a\", \"b\"]\n"}
	for name, body := range configurationFixture() {
		files["a/"+name] = body
		files["b/"+name] = body
	}
	h := newHarness(t, files)
	info := h.open(h.root, gen.SelectionCurrent{})
	if len(info.Projects) != 2 {
		t.Fatalf("%d projects", len(info.Projects))
	}
	for _, p := range info.Projects {
		if _, err := h.b.Index(gen.IndexParams{SessionID: h.sid, ProjectID: p.ProjectID, Action: gen.IndexActionStart}); err != nil {
			t.Fatal(errText(err))
		}
	}
	h.notes = nil
	h.b.progressEvery = 0
	var order []string
	for i := 0; i < 6 && h.b.Background(); i++ {
		var p gen.IndexProgressParams
		last := h.notes[len(h.notes)-1]
		_ = json.Unmarshal(last.params, &p)
		order = append(order, string(p.ProjectID))
	}
	if strings.Join(order, ",") != "p1,p2,p1,p2,p1,p2" {
		t.Errorf("indexing order %v", order)
	}
}

// The prefetch reads ahead up to prefetchDepth descriptors, never more,
// and stops when the index is done.
func TestPrefetchBound(t *testing.T) {
	h := openConfiguration(t)
	h.index(gen.IndexActionStart)
	p := h.b.s.projects[0]
	most := 0
	for h.b.Background() {
		if n := len(p.idx.inflight); n > most {
			most = n
		}
		if len(p.idx.inflight) > prefetchDepth {
			t.Fatalf("%d descriptors in flight, the bound is %d", len(p.idx.inflight), prefetchDepth)
		}
	}
	if most < 2 {
		t.Errorf("the prefetch read at most %d descriptor ahead", most)
	}
	if p.idx.jobs != nil || p.idx.inflight != nil {
		t.Errorf("the prefetch still runs after the index finished")
	}
}
