package strictjson

// Arena is memory for parsed trees that a caller reuses from one document
// to the next. ParseIn takes the values, element slices and member slices
// of a tree from an arena instead of allocating them, and Reset makes all
// of that memory free again.
//
// A runtime that parses many documents of similar size (a checker reading
// record after record, or the lines of one record) then allocates the
// tree's memory once, and the garbage collector neither scans nor clears a
// fresh tree per document.
//
// A tree parsed into an arena is valid until the arena's next Reset; after
// it, every Value of the tree may be overwritten by the next document.
// Reset does not clear the memory (the parser writes each value whole
// when it takes it), so an idle arena keeps its last trees, and what they
// refer to, alive until it is reused or dropped; it also keeps the
// parser's scratch for its next document, and with it the last document
// and its options. The strings of a tree do
// not live in the arena (they share the one copy of the input Parse makes,
// or the input itself with Options.Borrow), so strings taken from a tree
// stay valid. An Arena is not safe for concurrent use; the zero Arena is
// ready to use.
type Arena struct {
	vals chunks[Value]
	ptrs chunks[*Value]
	mems chunks[Member]
	// p is the parser of the arena's last document, kept for the next
	// one: a runtime that parses the lines of a stream one by one into an
	// arena would otherwise take a parser from the pool and give it back,
	// clearing its stacks, for every line.
	p *parser
	// values is the number of values of the last document parsed into
	// the arena.
	values int
}

// arenaChunk is the smallest block an arena allocates, in entries: large
// enough that a document of a few hundred kilobytes takes few blocks.
const arenaChunk = 1024

// chunks is a list of blocks of T, handed out in order, and the unused
// rest of the block handed out last.
type chunks[T any] struct {
	blocks [][]T
	next   int // index of the first block not handed out since Reset
	rest   []T // what the parsers left of block next-1
}

// take returns a slab of at least n entries, which may hold what an
// earlier document left: the rest of the current block, or another block.
func (c *chunks[T]) take(n int) []T {
	if len(c.rest) >= n {
		s := c.rest
		c.rest = nil
		return s
	}
	for c.next < len(c.blocks) {
		b := c.blocks[c.next]
		c.next++
		if len(b) >= n {
			return b
		}
		// Too small for this request: skipped until the next Reset.
	}
	b := make([]T, max(n, arenaChunk))
	c.blocks = append(c.blocks, b)
	c.next = len(c.blocks)
	return b
}

// keep takes back the rest of the slab a parser did not use.
func (c *chunks[T]) keep(rest []T) { c.rest = rest }

// reset makes the blocks available again. They are not cleared: clearing
// memory that holds pointers costs a write barrier per pointer while the
// collector runs, and the parser overwrites what it takes.
func (c *chunks[T]) reset() { c.next, c.rest = 0, nil }

// Reset frees every tree parsed into the arena for reuse.
func (a *Arena) Reset() {
	a.vals.reset()
	a.ptrs.reset()
	a.mems.reset()
}

// Values is the number of values (every scalar, array and object, as
// Options.MaxValues counts them) of the document the last ParseIn into a
// parsed; 0 when that parse failed or none was made. A caller that keeps a
// value budget across documents reads it here rather than walking the tree
// again.
func (a *Arena) Values() int { return a.values }

// ParseIn is Parse with the tree's memory taken from a. The tree is valid
// until a.Reset.
func ParseIn(a *Arena, data []byte, opt Options) (*Value, error) {
	p := a.p
	if p != nil {
		a.p = nil
		p.start(data, opt, true)
	} else {
		p = getParser(data, opt, true)
	}
	p.arena = a
	p.vals, p.ptrSlab, p.memSlab = a.vals.rest, a.ptrs.rest, a.mems.rest
	p.valsAt = 0
	a.vals.rest, a.ptrs.rest, a.mems.rest = nil, nil, nil
	v, err := p.run()
	// The parser's slabs are the rests of the arena's current blocks: the
	// next document goes on where this one ended.
	a.vals.keep(p.vals[p.valsAt:])
	a.ptrs.keep(p.ptrSlab)
	a.mems.keep(p.memSlab)
	if err != nil {
		a.values = 0
		putParser(p)
		return nil, err
	}
	a.values = p.nvalues
	if p.keepFor() {
		a.p = p
	} else {
		putParser(p)
	}
	return v, nil
}
