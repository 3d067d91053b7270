package genrt

import (
	"errors"
	"testing"
)

// Errors of a tree decoder carry pointers relative to the value decoded;
// each level prepends its step on the way up, escaping member names.
func TestRelativePointers(t *testing.T) {
	err := AtKey(AtIndex(AtKey(Invalid("", "bad"), "a/b"), 3), "m~n")
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Pointer != "/m~0n/3/a~1b" {
		t.Errorf("pointer %v", err)
	}
	if other := errors.New("plain"); AtKey(other, "k") != other {
		t.Error("AtKey changed an error that is not a ValidationError")
	}
	var d Decoder
	d.Notes = append(d.Notes, Note{Pointer: "/x"})
	mark := d.Mark()
	d.Notes = append(d.Notes, Note{Pointer: "/y"})
	d.Under(mark, "k")
	d.UnderIndex(0, 2)
	if d.Notes[0].Pointer != "/2/x" || d.Notes[1].Pointer != "/2/k/y" {
		t.Errorf("notes %+v", d.Notes)
	}
}

// Tag accepts a union's value only with the variant's tag.
func TestTag(t *testing.T) {
	for _, c := range []struct {
		in  string
		ok  bool
		ptr string
	}{
		{`{"type":"A","x":1}`, true, ""},
		{`{"type":"B"}`, false, "/type"},
		{`{"type":1}`, false, "/type"},
		{`{"x":1}`, false, "/type"},
		{`["type"]`, false, ""},
	} {
		err := Tag(parse(t, c.in), "type", "A")
		var ve *ValidationError
		if (err == nil) != c.ok || (err != nil && (!errors.As(err, &ve) || ve.Pointer != c.ptr)) {
			t.Errorf("Tag(%s) = %v, want ok %v at %q", c.in, err, c.ok, c.ptr)
		}
	}
}

// Under Strip, an unknown member is a note and an unrecognised value in an
// optional place is dropped with one note in place of those made inside it;
// without Strip both are errors of their kind.
func TestStripPolicy(t *testing.T) {
	v := parse(t, `{"known":1,"extra":2}`)
	strict := Decoder{}
	if err := strict.Unknown(v, 1, "T"); err == nil || err.(*ValidationError).Kind != ErrUnknownMember {
		t.Errorf("strict: %v", err)
	}
	loose := Decoder{Strip: true}
	if err := loose.Unknown(v, 1, "T"); err != nil || len(loose.Notes) != 1 || loose.Notes[0].Pointer != "/extra" {
		t.Errorf("strip: %v %+v", err, loose.Notes)
	}
	unknown := loose.Variant("type", "Z", "U", `"A"`)
	mark := loose.Mark()
	loose.Notes = append(loose.Notes, Note{Pointer: "/inside"})
	if !loose.Drop(unknown, mark, v, 0, "T") || len(loose.Notes) != 2 || loose.Notes[1].Kind != NoteUnknownVariant || loose.Notes[1].Pointer != "/known" {
		t.Errorf("drop: %+v", loose.Notes)
	}
	if strict.Drop(unknown, 0, v, 0, "T") || loose.Drop(Invalid("", "malformed"), 0, v, 0, "T") {
		t.Error("dropped without Strip, or dropped a malformed value")
	}
	null := parse(t, `{"o":null}`)
	if (&Decoder{}).NullMember(null, 0, "T") || !(&Decoder{NullAbsent: true}).NullMember(null, 0, "T") {
		t.Error("NullMember does not follow NullAbsent")
	}
}
