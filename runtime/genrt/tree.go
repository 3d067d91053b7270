package genrt

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Decoding an already-parsed tree.
//
// Generated decoders read a *strictjson.Value that the caller parsed once,
// so a runtime that has to look at a message itself (its type, its size,
// its position in a stream) does not parse it a second time to decode it.
// A Decoder carries what such a decoder needs besides the tree: the policy
// for material the contract does not describe, the source text for raw
// values, and a hook a runtime uses to apply its own rules to the values
// of chosen types in the same walk.
//
// Pointers in the errors and notes a tree decoder produces are relative to
// the value it was given: each level prepends its member name or index
// while an error or a note travels up, so nothing builds a pointer unless
// something is reported.

// Decoder says how a generated tree decoder reads. The zero Decoder is the
// strict one the byte-slice Decode functions use: unknown members and
// unrecognised union members are errors, null is never absent, raw values
// are re-encoded compactly.
type Decoder struct {
	// Strip tolerates what the contract does not describe, the way a
	// receiver of a newer peer must: a member a closed object does not
	// name is removed, and a value whose tag names no variant of its union
	// is removed where it may be (an optional member, an array element, a
	// map value) or makes the value holding it unrecognisable where it may
	// not (a required member). Each removal is a Note. Without Strip both
	// are errors.
	Strip bool
	// RejectUnknownMembers and RejectUnknownVariants take one half of
	// Strip back: under Strip, an unknown member (or an unrecognised
	// variant) is still an error. A receiver keys each half off the rule
	// that says it, so a profile that tolerates one does not tolerate the
	// other by accident.
	RejectUnknownMembers  bool
	RejectUnknownVariants bool
	// NullAbsent reads null in an optional member that is not nullable as
	// if the member were absent, and notes it. A null in a required member
	// is an error either way.
	NullAbsent bool
	// Src is the text the tree was parsed from. When set, a raw value
	// (any, object) is the slice of Src it was written as, byte for byte;
	// when nil it is the compact re-encoding of the tree.
	Src []byte
	// Named, when set, is called right after a value of a watched named
	// type (an object, a union, an alias or an enum) was decoded, children
	// before the values holding them, with the type's Go name and the
	// value's tree. An error it returns stops the decoding at that value;
	// a *ValidationError may carry the id of the rule it breaks.
	Named func(name string, v *strictjson.Value) error
	// Watch selects the types Named is called for, by the id the generated
	// package gives each type (its TypeIDs table): Named is called for type
	// id when Watch[id] is true, so the hook stays out of the common path.
	Watch []bool
	// Notes collects what Strip and NullAbsent tolerated.
	Notes []Note
}

// NoteKind says what a tolerant decoder did.
type NoteKind uint8

// The kinds of notes.
const (
	// NoteUnknownMember: a member the closed object does not name was
	// removed.
	NoteUnknownMember NoteKind = iota + 1
	// NoteUnknownVariant: a value whose tag names no variant was removed
	// from its object, array or map.
	NoteUnknownVariant
	// NoteNullAbsent: null in an optional member was read as absent.
	NoteNullAbsent
)

// Note is one thing a tolerant decoder removed or read as absent.
type Note struct {
	Kind NoteKind
	// Pointer is the JSON pointer of what was removed, relative to the
	// value the decoding started at.
	Pointer string
	// Type is the Go name of the object the member belongs to, or of the
	// union whose variant was not recognised.
	Type string
	// Name is the member name, or the unrecognised tag.
	Name string
}

// ErrorKind classifies a ValidationError beyond its message.
type ErrorKind uint8

// The error kinds a tree decoder reports.
const (
	// ErrInvalid: a described value is malformed (the zero kind).
	ErrInvalid ErrorKind = iota
	// ErrUnknownMember: a member a closed object does not name, where
	// unknown members are not stripped.
	ErrUnknownMember
	// ErrUnknownVariant: a tag that names no variant of its union.
	ErrUnknownVariant
)

// AtKey prepends the member name key to the pointer of a
// *ValidationError and returns err; other errors pass unchanged.
func AtKey(err error, key string) error {
	var ve *ValidationError
	if errors.As(err, &ve) {
		ve.Pointer = strictjson.AppendPointer("", key) + ve.Pointer
	}
	return err
}

// AtIndex prepends an array index to the pointer of a *ValidationError.
func AtIndex(err error, i int) error {
	var ve *ValidationError
	if errors.As(err, &ve) {
		ve.Pointer = "/" + strconv.Itoa(i) + ve.Pointer
	}
	return err
}

// InType records, on a *ValidationError that has no type yet, the Go name
// of the alias or enum the failing value was read as.
func InType(err error, typ string) error {
	var ve *ValidationError
	if errors.As(err, &ve) && ve.Type == "" {
		ve.Type = typ
	}
	return err
}

// Mark is the number of notes so far; Under and Drop take it to know
// which notes a member's decoding added.
func (d *Decoder) Mark() int { return len(d.Notes) }

// Under prepends the member name key to the pointers of the notes added
// since mark.
func (d *Decoder) Under(mark int, key string) {
	if len(d.Notes) > mark {
		d.prefix(mark, strictjson.AppendPointer("", key))
	}
}

// UnderIndex prepends an array index to the notes added since mark.
func (d *Decoder) UnderIndex(mark, i int) {
	if len(d.Notes) > mark {
		d.prefix(mark, "/"+strconv.Itoa(i))
	}
}

func (d *Decoder) prefix(mark int, p string) {
	for k := mark; k < len(d.Notes); k++ {
		d.Notes[k].Pointer = p + d.Notes[k].Pointer
	}
}

// Check calls the Named hook for a value of the type with the given id
// and Go name, when the type is watched.
func (d *Decoder) Check(id int, name string, v *strictjson.Value) error {
	if uint(id) >= uint(len(d.Watch)) || !d.Watch[id] || d.Named == nil {
		return nil
	}
	return d.Named(name, v)
}

// Unknown handles member i of the object v, which the closed type typ does
// not name: an error, or under Strip a note.
func (d *Decoder) Unknown(v *strictjson.Value, i int, typ string) error {
	m := &v.Members[i]
	if !d.Strip || d.RejectUnknownMembers {
		return &ValidationError{Pointer: strictjson.AppendPointer("", m.Key),
			Message: fmt.Sprintf("unknown member %q of %s", m.Key, typ), Kind: ErrUnknownMember, Type: typ}
	}
	d.Notes = append(d.Notes, Note{Kind: NoteUnknownMember, Pointer: strictjson.AppendPointer("", m.Key), Type: typ, Name: m.Key})
	return nil
}

// NullMember reports whether member i of v is a null that NullAbsent reads
// as absent (the member being optional and not nullable); it notes it.
func (d *Decoder) NullMember(v *strictjson.Value, i int, typ string) bool {
	m := &v.Members[i]
	if !d.NullAbsent || m.Value.Kind != strictjson.Null {
		return false
	}
	d.Notes = append(d.Notes, Note{Kind: NoteNullAbsent, Pointer: strictjson.AppendPointer("", m.Key), Type: typ, Name: m.Key})
	return true
}

// Unrecognised reports whether err says a value was not recognised.
func Unrecognised(err error) bool {
	var ve *ValidationError
	return errors.As(err, &ve) && ve.Kind == ErrUnknownVariant
}

// Drop reports whether the failed value of optional member i of v may be
// removed: under Strip, a value that was not recognised is. The notes its
// decoding made are replaced by one for the removal.
func (d *Decoder) Drop(err error, mark int, v *strictjson.Value, i int, typ string) bool {
	if !d.Strip || d.RejectUnknownVariants || !Unrecognised(err) {
		return false
	}
	m := &v.Members[i]
	d.Notes = append(d.Notes[:mark], Note{Kind: NoteUnknownVariant, Pointer: strictjson.AppendPointer("", m.Key), Type: typ, Name: m.Key})
	return true
}

// DropElem is Drop for element i of an array.
func (d *Decoder) DropElem(err error, mark, i int, typ string) bool {
	if !d.Strip || d.RejectUnknownVariants || !Unrecognised(err) {
		return false
	}
	d.Notes = append(d.Notes[:mark], Note{Kind: NoteUnknownVariant, Pointer: "/" + strconv.Itoa(i), Type: typ})
	return true
}

// DropKey is Drop for the value under key of a map.
func (d *Decoder) DropKey(err error, mark int, key, typ string) bool {
	if !d.Strip || d.RejectUnknownVariants || !Unrecognised(err) {
		return false
	}
	d.Notes = append(d.Notes[:mark], Note{Kind: NoteUnknownVariant, Pointer: strictjson.AppendPointer("", key), Type: typ, Name: key})
	return true
}

// MemberErr turns the error of required member i of v into the object's:
// its pointer gains the member name. An unrecognised value there makes the
// object unrecognisable too, which the error's kind carries up.
func (d *Decoder) MemberErr(err error, v *strictjson.Value, i int) error {
	return AtKey(err, v.Members[i].Key)
}

// Variant reports a union value whose tag names no variant: an error at
// the tag, of kind ErrUnknownVariant, which Drop removes under Strip.
func (d *Decoder) Variant(tagName, tag, union, known string) error {
	return &ValidationError{Pointer: strictjson.AppendPointer("", tagName),
		Message: fmt.Sprintf("unknown %s %q of %s; known: %s", tagName, tag, union, known),
		Kind:    ErrUnknownVariant, Type: union}
}

// Tag checks that v is an object whose member tagName is the string want:
// the value of a union's variant, as the union writes it.
func Tag(v *strictjson.Value, tagName, want string) error {
	if err := Object(v, ""); err != nil {
		return err
	}
	tv := v.Get(tagName)
	if tv == nil {
		return Missing("", tagName)
	}
	if tv.Kind != strictjson.String {
		return wrongKind(tv, strictjson.AppendPointer("", tagName), "a string")
	}
	if tv.Str != want {
		return Invalid(strictjson.AppendPointer("", tagName), "%q where %q is expected", tv.Str, want)
	}
	return nil
}

// TagOnly decodes a variant that is its tag alone: every member besides
// the tag is unknown to it.
func (d *Decoder) TagOnly(v *strictjson.Value, tagName, typ string) error {
	for i := range v.Members {
		if v.Members[i].Key == tagName {
			continue
		}
		if err := d.Unknown(v, i, typ); err != nil {
			return err
		}
	}
	return nil
}

// Readers of builtin values from a tree, with the signature every
// generated tree decoder shares. Their errors carry an empty pointer: the
// caller prepends where the value is.

// ReadString reads a string.
func ReadString(v *strictjson.Value, _ *Decoder) (string, error) {
	if v.Kind != strictjson.String {
		return "", wrongKind(v, "", "a string")
	}
	return v.Str, nil
}

// ReadInteger reads an integer within the safe range.
func ReadInteger(v *strictjson.Value, _ *Decoder) (int64, error) { return Integer(v, "") }

// ReadNumber reads a finite number.
func ReadNumber(v *strictjson.Value, _ *Decoder) (float64, error) { return Number(v, "") }

// ReadBoolean reads a boolean.
func ReadBoolean(v *strictjson.Value, _ *Decoder) (bool, error) { return Boolean(v, "") }

// ReadDecimalU64 reads an unsigned integer carried as a decimal string.
func ReadDecimalU64(v *strictjson.Value, _ *Decoder) (uint64, error) { return DecimalU64(v, "") }

// ReadRaw reads any value as raw JSON: its text in Src, or its compact
// encoding.
func ReadRaw(v *strictjson.Value, d *Decoder) (json.RawMessage, error) {
	if d.Src != nil && v.Start <= v.End && v.End <= len(d.Src) {
		return d.Src[v.Start:v.End:v.End], nil
	}
	return v.AppendCompact(nil), nil
}

// ReadRawObject reads an object carried as data.
func ReadRawObject(v *strictjson.Value, d *Decoder) (json.RawMessage, error) {
	if err := Object(v, ""); err != nil {
		return nil, err
	}
	return ReadRaw(v, d)
}
