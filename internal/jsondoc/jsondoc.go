// Package jsondoc checks a JSON document a person wrote (a spec, a config,
// a dispositions or policy file) in the order every such reader needs:
// strict JSON first, then the numbers a JSON Schema validator cannot hold
// (beyond float64), then the schema, whose error tree it flattens to the
// innermost causes, each with the JSON Pointer of the value at fault.
// Callers word the problems in their own file's vocabulary.
package jsondoc

import (
	"bytes"
	"errors"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Stage is the check that found a problem. Check stops after the first
// stage that finds any, since later checks cannot run on such a document.
type Stage int

const (
	// Syntax: the bytes are not strict JSON (Err holds strictjson's error).
	Syntax Stage = iota + 1
	// Number: a number is beyond float64, which schema validation would
	// silently round.
	Number
	// Schema: the document breaks the schema. Leaf is the innermost cause,
	// or nil when the validator failed without a validation error.
	Schema
)

// Problem is one thing wrong with a document.
type Problem struct {
	Stage Stage
	// Pointer is the JSON Pointer of the value at fault ("" for the whole
	// document, or when the parser could not tell).
	Pointer string
	// Offset is the byte offset of a Syntax problem, -1 when unknown or
	// for the other stages.
	Offset int
	// Msg says what is wrong, without the file or pointer.
	Msg string
	// Err is the parser's or validator's error as it came (Syntax, and
	// Schema with a nil Leaf).
	Err error
	// Leaf is the schema violation of a Schema problem.
	Leaf *jsonschema.ValidationError
}

// FileProblem is a problem placed in the file a person edits, as every
// reader of such a file (a config, a dispositions file) reports it after
// wording a Problem in its own vocabulary: file:/pointer: message.
type FileProblem struct {
	File    string
	Pointer string
	Line    int // 0 when unknown
	Msg     string
}

// String renders the problem as file:/pointer: message.
func (p FileProblem) String() string {
	return p.File + ":" + strictjson.DisplayPointer(p.Pointer) + ": " + p.Msg
}

// JoinProblems renders problems one a line, as an error's text.
func JoinProblems(ps []FileProblem) string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Doc is a document Check parsed: its tree and, once the numbers passed,
// the generic value (maps, slices, json.Number) the schema was checked on.
// It also finds where a pointer's value is in the text (Offset, Line) for
// problems found after Check; that index is built on first use, since
// most documents never need it, and a Doc is safe for concurrent use.
type Doc struct {
	Tree  *strictjson.Value
	Value any

	data      []byte
	index     sync.Once
	offsets   map[string]int
	lineStart []int
}

// Offset returns the byte offset of the value at ptr, or of its nearest
// enclosing value when ptr names none (a missing member is told where
// its object is); 0 for a nil Doc.
func (d *Doc) Offset(ptr string) int {
	if d == nil {
		return 0
	}
	d.index.Do(d.build)
	for {
		if off, ok := d.offsets[ptr]; ok {
			return off
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return 0
		}
		ptr = ptr[:i]
	}
}

// Line returns the 1-based line of the value at ptr, or of its nearest
// enclosing value; 1 for a nil Doc.
func (d *Doc) Line(ptr string) int {
	off := d.Offset(ptr)
	if d == nil {
		return 1
	}
	return sort.Search(len(d.lineStart), func(i int) bool { return d.lineStart[i] > off })
}

func (d *Doc) build() {
	if d.Tree != nil {
		d.offsets = d.Tree.Offsets()
	}
	d.lineStart = []int{0}
	for i, c := range d.data {
		if c == '\n' {
			d.lineStart = append(d.lineStart, i+1)
		}
	}
}

// LineAt returns the 1-based line of byte offset off in data (clamped to
// the data), for a Syntax problem, which has an offset and no Doc.
func LineAt(data []byte, off int) int {
	off = min(max(off, 0), len(data))
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

// Check parses data strictly with opt, then checks its numbers and, when
// schema is not nil, validates it. It returns the problems of the first
// stage that found any (schema problems in the validator's order, one per
// innermost cause, repeats kept) and the document as far as it was read:
// nil only when data is not JSON, so that a caller can still find the
// lines of later problems in the tree.
func Check(data []byte, opt strictjson.Options, schema *jsonschema.Schema) (*Doc, []Problem) {
	tree, err := strictjson.Parse(data, opt)
	if err != nil {
		p := Problem{Stage: Syntax, Offset: -1, Msg: err.Error(), Err: err}
		var se *strictjson.Error
		if errors.As(err, &se) {
			p.Pointer, p.Offset, p.Msg = se.Pointer, se.Offset, se.Msg
		}
		return nil, []Problem{p}
	}
	if nums := tree.NumbersBeyondFloat64(); len(nums) > 0 {
		ps := make([]Problem, len(nums))
		for i, n := range nums {
			ps[i] = Problem{Stage: Number, Pointer: n.Pointer, Offset: -1, Msg: n.BeyondFloat64Message()}
		}
		return &Doc{Tree: tree, data: data}, ps
	}
	d := &Doc{Tree: tree, Value: tree.Interface(), data: data}
	if schema == nil {
		return d, nil
	}
	if err := schema.Validate(d.Value); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return d, []Problem{{Stage: Schema, Offset: -1, Msg: err.Error(), Err: err}}
		}
		leaves := Leaves(ve)
		ps := make([]Problem, len(leaves))
		for i, l := range leaves {
			ps[i] = Problem{Stage: Schema, Pointer: l.InstanceLocation, Offset: -1, Msg: l.Message, Leaf: l}
		}
		return d, ps
	}
	return d, nil
}

// Leaves returns the innermost causes of a JSON Schema validation error,
// depth first: they say what is actually wrong, while the outer errors
// only say which $ref or keyword led there.
func Leaves(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, Leaves(c)...)
	}
	return out
}

// UnknownMembers reads the member names out of an additionalProperties
// violation ("additionalProperties 'a', 'b' not allowed"), the one message
// that names the members at fault only in its text; ok is false for any
// other message. A caller reports each name at
// strictjson.AppendPointer(leaf pointer, name).
func UnknownMembers(msg string) (names []string, ok bool) {
	list, ok := strings.CutPrefix(msg, "additionalProperties ")
	if !ok || !strings.HasSuffix(list, " not allowed") {
		return nil, false
	}
	for _, n := range strings.Split(strings.TrimSuffix(list, " not allowed"), ", ") {
		names = append(names, strings.Trim(n, "'"))
	}
	return names, true
}
