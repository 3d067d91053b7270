package designer

import "testing"

// Type names of the configuration namespace lead to their kinds; the
// qualifiers of a type are described, those without words are not; the
// list of reference types is the caller's own copy.
func TestTypeCaptions(t *testing.T) {
	for name, want := range map[string]Kind{
		"CatalogRef": "catalog", "DocumentObject": "document", "InformationRegisterRecordSet": "information-register",
		"DefinedType": "defined-type", "Characteristic": "chart-of-characteristic-types",
	} {
		if got, ok := KindOfTypeName(name); !ok || got != want {
			t.Errorf("KindOfTypeName(%s) = %q, %v; want %q", name, got, ok, want)
		}
	}
	if k, ok := KindOfTypeName("NoSuchRef"); ok {
		t.Errorf("KindOfTypeName(NoSuchRef) = %q", k)
	}
	if c, ok := PrimitiveTypeCaption("decimal"); !ok || c != (Caption{RU: "Число", EN: "Number"}) {
		t.Errorf("PrimitiveTypeCaption(decimal) = %+v, %v", c, ok)
	}
	if _, ok := TypeFamilyCaption("CatalogRef.Товары"); ok {
		t.Error("a dotted type name is a family")
	}
	q := &Element{Local: "NumberQualifiers", Children: []*Element{
		{Local: "Digits", Text: "10"}, {Local: "FractionDigits", Text: "2"}, {Local: "AllowedSign", Text: "Nonnegative"}}}
	if c, ok := QualifierCaption(q); !ok || c.EN != "10 digits, 2 fractional, nonnegative" || c.RU != "разрядность 10, точность 2, неотрицательное" {
		t.Errorf("QualifierCaption(number) = %+v, %v", c, ok)
	}
	if c, ok := QualifierCaption(&Element{Local: "StringQualifiers"}); !ok || c.EN != "unlimited length" {
		t.Errorf("QualifierCaption(string without length) = %+v, %v", c, ok)
	}
	if _, ok := QualifierCaption(&Element{Local: "BinaryDataQualifiers"}); ok {
		t.Error("binary data qualifiers have a caption")
	}
	rt := RefTypes()
	rt[0].Prefix = "Changed"
	if RefTypes()[0].Prefix != "CatalogRef" {
		t.Error("RefTypes shares its table with the caller")
	}
}
