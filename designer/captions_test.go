package designer

import "testing"

// Captions are looked up by the XML's own names: a property, a value of
// a platform enumeration, a value of an editing profile's field (the
// platform's caption first); anything unknown has none.
func TestCaptions(t *testing.T) {
	if ru, en, ok := PropertyCaption("Synonym"); !ok || ru != "Синоним" || en != "Synonym" {
		t.Errorf("PropertyCaption(Synonym) = %q, %q, %v", ru, en, ok)
	}
	if _, _, ok := PropertyCaption("NoSuchProperty"); ok {
		t.Error("an unknown property has a caption")
	}
	if ru, en, ok := EnumCaption("ReturnValuesReuse", "DuringSession"); !ok || ru != "На время сеанса" || en != "During session" {
		t.Errorf("EnumCaption(ReturnValuesReuse, DuringSession) = %q, %q, %v", ru, en, ok)
	}
	if _, _, ok := EnumCaption("ReturnValuesReuse", "Future"); ok {
		t.Error("an unknown value has a caption")
	}
	// "Use" is a field of the editing profile whose values no platform
	// enumeration names: EnumCaption does not know them, EditValueCaption
	// does, and it names the platform's values as EnumCaption does.
	if _, _, ok := EnumCaption("Use", "ForItem"); ok {
		t.Error("EnumCaption names a value of the editing profile")
	}
	if ru, en, ok := EditValueCaption("Use", "ForItem"); !ok || ru != "Для элемента" || en != "For item" {
		t.Errorf("EditValueCaption(Use, ForItem) = %q, %q, %v", ru, en, ok)
	}
	if ru, en, ok := EditValueCaption("FullTextSearch", "DontUse"); !ok || ru != "Не использовать" || en != "Don't use" {
		t.Errorf("EditValueCaption(FullTextSearch, DontUse) = %q, %q, %v", ru, en, ok)
	}
}
