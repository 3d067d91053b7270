package metadata

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"time"

	"github.com/contractkit/contractkit/designer"
	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata/sourceread"
	"github.com/contractkit/contractkit/ide/metadata/textindex"
)

// failure is one descriptor the index could not read.
type failure struct {
	objectID string
	code     string
	details  json.RawMessage
}

// index is a project's search index, built one descriptor at a time
// between requests. It never reads files on its own: the worker steps it.
type index struct {
	state    gen.ProgressState
	text     *textindex.Index[*object] // the records: names and synonyms of the objects read
	queue    []*object                 // objects whose own descriptors wait to be read
	failures map[string]failure
	paused   bool

	lastSent      time.Time // the last progress notification
	sentState     gen.ProgressState
	countersDirty bool

	// Prefetching: a goroutine reads and parses the next few queued
	// descriptors on the other core while the worker integrates the
	// current one. It shares nothing with the worker but the files; the
	// worker still takes in one descriptor per step.
	jobs     chan fetchJob
	inflight map[string]chan sourceread.Fetched
	ready    map[string]sourceread.Fetched // results taken from inflight before their step
}

// prefetchDepth bounds the descriptors read ahead of the worker;
// prefetchWorkers read them. Parsing is most of a step, so two readers
// keep both cores of a small machine busy while the worker waits.
const (
	prefetchDepth   = 32
	prefetchWorkers = 2
)

// backgroundBatch bounds the descriptors BackgroundUntil takes in at one
// call, so that the caller's own checks (the end of the conversation)
// come round often.
const backgroundBatch = 256

// BackgroundUntil runs descriptors of indexing, one Background step at a
// time, until ctx is done (the first always runs unless a request is
// already waiting) and at most backgroundBatch of them; it reports whether
// it did anything. The server's ctx is done as soon as a request is
// waiting, so a request waits for no more than the descriptor in hand;
// and a step whose descriptor is still being read ahead gives way to the
// request instead of waiting for it.
func (b *Backend) BackgroundUntil(ctx context.Context) bool {
	did := false
	for i := 0; i < backgroundBatch; i++ {
		if i > 0 && ctx.Err() != nil {
			break
		}
		if p := b.next(); p != nil && !p.await(ctx) {
			break
		}
		if !b.Background() {
			break
		}
		did = true
	}
	return did
}

// await waits until the next descriptor of p has been read ahead, or ctx
// is done; it reports false in the second case.
func (p *project) await(ctx context.Context) bool {
	ix := p.idx
	if len(ix.queue) == 0 {
		return true
	}
	o := ix.queue[0]
	ch, inflight := ix.inflight[o.desc]
	if !inflight || !o.own || o.loaded {
		return true
	}
	if _, ok := ix.ready[o.desc]; ok {
		return true
	}
	done := ctx.Done()
	if ctx.Err() != nil {
		done = nil
		select {
		case f := <-ch:
			ix.ready[o.desc] = f
			return true
		default:
			return false
		}
	}
	select {
	case f := <-ch:
		ix.ready[o.desc] = f
		return true
	case <-done:
		return false
	}
}

type fetchJob struct {
	path string
	res  chan sourceread.Fetched
}

// prefetch hands the next queued descriptors to the prefetching
// goroutine, starting it when needed; never more than prefetchDepth are
// in flight.
func (p *project) prefetch() {
	ix := p.idx
	if ix.jobs == nil {
		ix.jobs = make(chan fetchJob, prefetchDepth)
		ix.inflight = map[string]chan sourceread.Fetched{}
		ix.ready = map[string]sourceread.Fetched{}
		for i := 0; i < prefetchWorkers; i++ {
			r := p.r.Fork() // a copy: its directory cache and buffer are the goroutine's own
			go func(jobs <-chan fetchJob) {
				for j := range jobs {
					j.res <- r.Fetch(j.path)
					// Both cores may be reading ahead; a request that has
					// just arrived gets its reader scheduled now rather than
					// at the next preemption.
					runtime.Gosched()
				}
			}(ix.jobs)
		}
	}
	for i, o := range ix.queue {
		if len(ix.inflight) >= prefetchDepth || i >= 2*prefetchDepth {
			break
		}
		if !o.own || o.loaded {
			continue
		}
		if _, ok := ix.inflight[o.desc]; ok {
			continue
		}
		ch := make(chan sourceread.Fetched, 1)
		ix.inflight[o.desc] = ch
		ix.jobs <- fetchJob{path: o.desc, res: ch}
	}
}

// stopPrefetch ends the prefetching goroutine and forgets what it read:
// after a change, a descriptor read before it may be stale.
func (p *project) stopPrefetch() {
	ix := p.idx
	if ix.jobs != nil {
		close(ix.jobs)
		ix.jobs, ix.inflight, ix.ready = nil, nil, nil
	}
}

func newIndex() *index {
	return &index{state: gen.ProgressStateNotStarted, text: textindex.New[*object](), failures: map[string]failure{}}
}

func (ix *index) progress() gen.Progress {
	return gen.Progress{State: ix.state, IndexedObjects: int64(ix.text.Len()),
		PendingDescriptors: int64(len(ix.queue)), FailedDescriptors: int64(len(ix.failures))}
}

// start (re)builds the index from the root. Descriptors already read stay
// in memory, so a rebuild reuses them.
func (p *project) startIndex() {
	p.stopPrefetch()
	ix := p.idx
	ix.text = textindex.New[*object]()
	ix.failures = map[string]failure{}
	ix.queue = ix.queue[:0]
	ix.paused = false
	ix.state = gen.ProgressStateBuilding
	ix.queue = append(ix.queue, p.root)
}

// step indexes one descriptor: the object, its inline descendants and,
// for the kinds that have them, its predefined items; it queues the
// objects that have descriptors of their own.
func (p *project) step() {
	ix := p.idx
	if len(ix.queue) == 0 {
		return
	}
	o := ix.queue[0]
	ix.queue = ix.queue[1:]
	if o != p.root {
		// A changed owner may have dropped the object since it was queued.
		if cur, ok := p.objs[o.id]; !ok || cur != o {
			p.finishIfDone()
			return
		}
	}
	var err error
	if ch, ok := ix.inflight[o.desc]; ok && o.own && !o.loaded {
		delete(ix.inflight, o.desc)
		f, ready := ix.ready[o.desc]
		if ready {
			delete(ix.ready, o.desc)
		} else {
			f = <-ch
		}
		d, ferr := p.r.Settle(f)
		err = p.accept(o, d, ferr)
	} else {
		err = p.load(o)
	}
	if err != nil {
		ix.failures[o.id] = indexFailure(o, err)
	} else {
		p.addTree(o)
		if len(o.diags) > 0 {
			// Read, but with fragments the schema does not know: not
			// reported as fully indexed.
			raw, _ := json.Marshal(map[string]any{"diagnostics": diagnostics(o.diags)})
			ix.failures[o.id] = failure{objectID: o.id, code: "unsupported_metadata", details: raw}
		}
	}
	ix.countersDirty = true
	p.finishIfDone()
	if len(ix.queue) > 0 {
		p.prefetch()
	} else {
		p.stopPrefetch()
	}
}

func (p *project) finishIfDone() {
	ix := p.idx
	if len(ix.queue) > 0 || ix.state != gen.ProgressStateBuilding {
		return
	}
	if len(ix.failures) > 0 {
		ix.state = gen.ProgressStateIncomplete
	} else {
		ix.state = gen.ProgressStateReady
	}
}

// addTree records o and the objects its descriptor defines inline.
func (p *project) addTree(o *object) {
	ix := p.idx
	p.addRecord(o)
	for _, c := range o.children {
		if c.unsupported() {
			continue
		}
		if c.own {
			ix.queue = append(ix.queue, c)
			continue
		}
		p.addTree(c)
	}
	if hasPredefined(o) {
		if err := p.loadPredefined(o); err != nil {
			ix.failures[o.id] = indexFailure(o, err)
		}
		var walk func(items []*object)
		walk = func(items []*object) {
			for _, it := range items {
				p.addRecord(it)
				walk(it.children)
			}
		}
		walk(o.rare().predef)
	}
}

func (p *project) addRecord(o *object) { p.idx.text.Add(o) }

// An object is a record of the text index: by its pointer, with its slot
// for the record number, its name, synonyms and ObjectId.
func (o *object) IndexSlot() *int32              { return &o.rec }
func (o *object) IndexName() string              { return o.name }
func (o *object) IndexSynonyms() []designer.Text { return o.synonyms }
func (o *object) IndexID() string                { return o.id }

// forgetRecords drops the records of o's subtree, which a change made
// stale; they come back when the index reads the owner again.
func (p *project) forgetRecords(o *object) {
	p.stopPrefetch()
	ix := p.idx
	prefix := o.id + "/"
	ix.text.Remove(func(r *object) bool { return r.id == o.id || strings.HasPrefix(r.id, prefix) })
	for id := range ix.failures {
		if id == o.id || strings.HasPrefix(id, prefix) {
			delete(ix.failures, id)
		}
	}
	if ix.state != gen.ProgressStateNotStarted {
		ix.queue = append(ix.queue, o)
		if ix.state == gen.ProgressStateReady || ix.state == gen.ProgressStateIncomplete {
			ix.state = gen.ProgressStateIncomplete
		}
	}
}

func indexFailure(o *object, err error) failure {
	f := failure{objectID: o.id}
	var se *sourceread.Error
	if errors.As(err, &se) {
		switch {
		case se.Reason == gen.SourceErrorReasonUnsupported:
			f.code = "unsupported_metadata"
			raw, _ := json.Marshal(map[string]any{"diagnostics": diagnostics(o.diags)})
			f.details = raw
			return f
		case se.XML:
			f.code = string(gen.DomainErrorKindXMLInvalid)
		case se.Reason == gen.SourceErrorReasonMissing:
			f.code = string(gen.DomainErrorKindSourceMissing)
		default:
			f.code = string(gen.DomainErrorKindSourceInvalid)
		}
		oid := gen.ObjectID(o.id)
		d := gen.SourceErrorDetails{ObjectID: &oid, Reason: se.Reason}
		raw, _ := d.MarshalJSON()
		f.details = raw
		return f
	}
	f.code = string(gen.DomainErrorKindSourceInvalid)
	f.details = json.RawMessage(`{}`)
	return f
}

var rankNames = []gen.HitRank{gen.HitRankExactName, gen.HitRankExactSynonym, gen.HitRankPrefixName,
	gen.HitRankPrefixSynonym, gen.HitRankSubstringName, gen.HitRankSubstringSynonym}

// search matches the ready records: a literal substring after Unicode
// lower-casing, ranked exact → prefix → substring, names before
// synonyms; ties by lower-cased name, then ObjectId.
func (p *project) search(text string, limit int, lang *string) ([]textindex.Hit[*object], bool) {
	q := strings.ToLower(strings.TrimSpace(text))
	if q == "" {
		return nil, false
	}
	return p.idx.text.Search([]byte(q), limit, lang)
}
