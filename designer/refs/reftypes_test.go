package refs

import (
	"testing"

	"github.com/contractkit/contractkit/designer"
)

// designer.RefTypes (the type list of the property editor) spells the
// reference types again instead of deriving them from the class words
// here: each must be this package's class word followed by Ref and
// Ссылка, or a rename and the editor would disagree on a type's name.
func TestRefTypesAgreeWithClassWords(t *testing.T) {
	rts := designer.RefTypes()
	if len(rts) == 0 {
		t.Fatal("no reference types")
	}
	for _, rt := range rts {
		w, ok := words[rt.Kind]
		if !ok {
			t.Errorf("%s: a reference type of a kind without class words", rt.Kind)
			continue
		}
		if rt.Prefix != w.class[0]+"Ref" || rt.RU != w.class[1]+"Ссылка" {
			t.Errorf("%s: RefTypes says %s / %s, the class words make %sRef / %sСсылка", rt.Kind, rt.Prefix, rt.RU, w.class[0], w.class[1])
		}
		if got, ok := designer.KindOfTypeName(rt.Prefix); !ok || got != rt.Kind {
			t.Errorf("KindOfTypeName(%s) = %q, %v; want %q", rt.Prefix, got, ok, rt.Kind)
		}
	}
}
