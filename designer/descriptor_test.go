package designer

import (
	"errors"
	"strings"
	"testing"
)

const head = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

func parse(t *testing.T, xml string) *Descriptor {
	t.Helper()
	d, err := ParseDescriptor("x.xml", []byte(xml), DefaultLimits)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return d
}

// The root may use any prefix for the MDClasses namespace, carry a BOM and
// CRLF line ends, and any format version; ranges count the original bytes.
func TestDescriptorPrefixBOMCRLF(t *testing.T) {
	src := "\ufeff" + strings.ReplaceAll(head+`<m:MetaDataObject xmlns:m="http://v8.1c.ru/8.3/MDClasses" xmlns:v="http://v8.1c.ru/8.1/data/core" version="2.99">
<m:Catalog uuid="u1"><m:Properties><m:Name>Товары</m:Name><m:Synonym><v:item><v:lang>ru</v:lang><v:content>Товары склада</v:content></v:item></m:Synonym></m:Properties>
<m:ChildObjects><m:Attribute uuid="u1"><m:Properties><m:Name>Код</m:Name></m:Properties></m:Attribute><m:Form>Форма</m:Form></m:ChildObjects></m:Catalog>
</m:MetaDataObject>`, "\n", "\r\n")
	d := parse(t, src)
	if d.Version != "2.99" || d.Object == nil || d.Object.Info.Kind != "catalog" || d.Object.Name != "Товары" || d.Object.UUID != "u1" {
		t.Fatalf("descriptor %+v", d)
	}
	if len(d.Object.Synonyms) != 1 || d.Object.Synonyms[0] != (Text{"ru", "Товары склада"}) {
		t.Errorf("synonyms %+v", d.Object.Synonyms)
	}
	if len(d.Object.Children) != 2 || d.Object.Children[0].Inline == nil || d.Object.Children[1].Inline != nil || d.Object.Children[1].Name != "Форма" {
		t.Fatalf("children %+v", d.Object.Children)
	}
	name := d.Object.Properties().Child("Name")
	if got := src[name.Start:name.End]; got != "<m:Name>Товары</m:Name>" {
		t.Errorf("range covers %q", got)
	}
	if len(d.Diagnostics) != 0 {
		t.Errorf("diagnostics %v", d.Diagnostics)
	}
}

// Recoverable oddities are diagnostics with the range of the element;
// the rest of the file is still read.
func TestDescriptorDiagnostics(t *testing.T) {
	cases := []struct {
		name, xml string
		want      []string // codes
		object    bool
	}{
		{"foreign namespace", `<MetaDataObject xmlns="urn:foreign"><Configuration/></MetaDataObject>`, []string{"unsupported_root"}, false},
		{"unknown kind", `<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses"><FutureObject><Properties><Name>Б</Name></Properties></FutureObject></MetaDataObject>`, []string{"unknown_kind"}, false},
		{"no object", `<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses"/>`, []string{"invalid_object"}, false},
		{"unknown child", `<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses"><Catalog><Properties><Name>К</Name></Properties><ChildObjects><Gadget>Г</Gadget><Form>Ф</Form></ChildObjects></Catalog></MetaDataObject>`, []string{"unknown_kind"}, true},
		{"child without name", `<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses"><Catalog><Properties><Name>К</Name></Properties><ChildObjects><Form> </Form></ChildObjects></Catalog></MetaDataObject>`, []string{"invalid_object"}, true},
		{"duplicate", `<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses"><Catalog><Properties><Name>К</Name></Properties><ChildObjects><Form>Ф</Form><Form>Ф</Form></ChildObjects></Catalog></MetaDataObject>`, []string{"duplicate_identity"}, true},
		{"object without name", `<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses"><Catalog><Properties/></Catalog></MetaDataObject>`, []string{"invalid_object"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := parse(t, c.xml)
			var codes []string
			for _, dg := range d.Diagnostics {
				codes = append(codes, dg.Code)
				if dg.Range == nil || dg.Range.End <= dg.Range.Start || int(dg.Range.End) > len(c.xml) {
					t.Errorf("bad range %v", dg)
				}
			}
			if strings.Join(codes, ",") != strings.Join(c.want, ",") || (d.Object != nil) != c.object {
				t.Errorf("codes %v object %v", codes, d.Object != nil)
			}
		})
	}
}

// Whole-file failures name the file and the reason; a DTD is refused.
func TestDescriptorErrors(t *testing.T) {
	deep := strings.Repeat("<a>", 10) + strings.Repeat("</a>", 10)
	cases := []struct {
		name, xml, reason string
		lim               Limits
	}{
		{"malformed", `<MetaDataObject`, ReasonMalformed, DefaultLimits},
		{"dtd", `<!DOCTYPE x [<!ENTITY a "b">]><x/>`, ReasonMalformed, DefaultLimits},
		{"latin1", `<?xml version="1.0" encoding="windows-1251"?><x/>`, ReasonMalformed, DefaultLimits},
		{"bad utf8", "<x>\xff</x>", ReasonMalformed, DefaultLimits},
		{"two roots", `<x/><y/>`, ReasonMalformed, DefaultLimits},
		{"empty", ``, ReasonMalformed, DefaultLimits},
		{"too deep", deep, ReasonTooDeep, Limits{MaxBytes: 1 << 20, MaxDepth: 9}},
		{"too large", `<x/>`, ReasonTooLarge, Limits{MaxBytes: 3, MaxDepth: 10}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseDescriptor("dir/x.xml", []byte(c.xml), c.lim)
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Reason != c.reason || !strings.HasPrefix(err.Error(), "dir/x.xml: ") {
				t.Fatalf("got %v, want %s", err, c.reason)
			}
		})
	}
	// At the limits exactly, the same inputs are read.
	if _, err := ParseXML("x", []byte(deep), Limits{MaxBytes: 1 << 20, MaxDepth: 10}); err != nil {
		t.Errorf("depth at the limit: %v", err)
	}
	if _, err := ParseXML("x", []byte(`<x/>`), Limits{MaxBytes: 4, MaxDepth: 10}); err != nil {
		t.Errorf("size at the limit: %v", err)
	}
}

// Predefined items keep XML order and nesting; names need only be unique
// among siblings.
func TestPredefined(t *testing.T) {
	src := `<PredefinedData xmlns="http://v8.1c.ru/8.3/xcf/predef"><Item><Name>А</Name><Description>Первый</Description><ChildItems><Item><Name>Б</Name></Item><Item><Name>Б</Name></Item></ChildItems></Item><Item><Name>Б</Name></Item><Item><Code>1</Code></Item></PredefinedData>`
	items, diags, err := ParsePredefined("p.xml", []byte(src), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || items[0].Name != "А" || items[0].Description != "Первый" || len(items[0].Children) != 1 || items[1].Name != "Б" {
		t.Fatalf("items %+v", items)
	}
	var codes []string
	for _, d := range diags {
		codes = append(codes, d.Code)
	}
	if strings.Join(codes, ",") != "duplicate_identity,invalid_object" {
		t.Errorf("diagnostics %v", codes)
	}
	_, diags, _ = ParsePredefined("p.xml", []byte(`<Other/>`), DefaultLimits)
	if len(diags) != 1 || diags[0].Code != "unsupported_root" {
		t.Errorf("foreign root %v", diags)
	}
}

func TestObjectID(t *testing.T) {
	cases := []struct{ parent, name, want string }{
		{"", "Товары", "catalog:Товары"},
		{"catalog:A", "a/b:c%d", "catalog:A/catalog:a%2Fb%3Ac%25d"},
		{"", "%2F", "catalog:%252F"},
	}
	for _, c := range cases {
		if got := ObjectID(c.parent, "catalog", c.name); got != c.want {
			t.Errorf("ObjectID(%q, %q) = %q, want %q", c.parent, c.name, got, c.want)
		}
		seg := c.want[strings.LastIndex(c.want, ":")+1:]
		if got := UnescapeName(seg); got != c.name {
			t.Errorf("UnescapeName(%q) = %q, want %q", seg, got, c.name)
		}
	}
}

// The kind table is consistent: every collection and root kind is known,
// kinds with modules name their files, every tag maps back.
func TestKindTable(t *testing.T) {
	kinds := AllKinds()
	if len(kinds) != 68 {
		t.Errorf("%d kinds", len(kinds))
	}
	for _, k := range kinds {
		info, _ := Lookup(k)
		for _, c := range info.Collections {
			if _, ok := Lookup(c); !ok {
				t.Errorf("%s: unknown collection %s", k, c)
			}
		}
		for _, m := range info.Modules {
			if ModuleFile(m) == "" {
				t.Errorf("%s: module role %s has no file", k, m)
			}
			if _, ok := ModuleLabels[m]; !ok {
				t.Errorf("%s: module role %s has no label", k, m)
			}
		}
		if info.Plural.RU == "" || info.Plural.EN == "" {
			t.Errorf("%s: no label", k)
		}
		if k != KindPredefinedItem {
			for _, tag := range info.Tags {
				if got, ok := KindOfTag(tag); !ok || got != info {
					t.Errorf("tag %s does not map back to %s", tag, k)
				}
			}
		}
	}
	seen := map[Kind]bool{}
	for _, s := range RootOrder {
		for _, k := range append(append([]Kind{s.Kind}, s.Common...), s.Nested...) {
			if k == "" {
				continue
			}
			if _, ok := Lookup(k); !ok || seen[k] {
				t.Errorf("root order: %s unknown or repeated", k)
			}
			seen[k] = true
		}
	}
	// Every kind that is not the root, not nested and not a predefined
	// item sits somewhere in a configuration's root.
	top := 0
	for _, k := range kinds {
		if info, _ := Lookup(k); info.Dir != "" && info.Dir != "Forms" && info.Dir != "Templates" && info.Dir != "Commands" && info.Dir != "Recalculations" {
			top++
		}
	}
	if len(seen) != top || top != 47 {
		t.Errorf("root order has %d kinds, %d top-level kinds exist, want 47", len(seen), top)
	}
}

func FuzzParseDescriptor(f *testing.F) {
	f.Add([]byte(`<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses"><Catalog><Properties><Name>К</Name></Properties><ChildObjects><Form>Ф</Form><Attribute><Properties><Name>А</Name></Properties></Attribute></ChildObjects></Catalog></MetaDataObject>`))
	f.Add([]byte("\ufeff<m:MetaDataObject xmlns:m=\"http://v8.1c.ru/8.3/MDClasses\"/>"))
	f.Add([]byte(`<PredefinedData xmlns="http://v8.1c.ru/8.3/xcf/predef"><Item><Name>А</Name></Item></PredefinedData>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDescriptor("f.xml", data, Limits{MaxBytes: 1 << 16, MaxDepth: 32})
		if err == nil {
			for _, dg := range d.Diagnostics {
				if dg.Range != nil && (dg.Range.Start < 0 || dg.Range.End > int64(len(data)) || dg.Range.Start > dg.Range.End) {
					t.Fatalf("range %v outside %d bytes", dg.Range, len(data))
				}
			}
		}
		ParsePredefined("f.xml", data, Limits{MaxBytes: 1 << 16, MaxDepth: 32})
	})
}

// Where each root kind's group sits, and which folder holds its
// descriptors; every kind names one of its objects in both languages.
func TestRootPlacementAndDirs(t *testing.T) {
	cases := []struct {
		kind     Kind
		inCommon bool
		under    Kind
	}{{"catalog", false, ""}, {"common-module", true, ""}, {"document-numerator", false, KindDocument}, {"sequence", false, KindDocument}}
	for _, c := range cases {
		pl, ok := RootPlacement(c.kind)
		if !ok || pl.InCommon != c.inCommon || pl.Under != c.under {
			t.Errorf("%s: %+v %v", c.kind, pl, ok)
		}
	}
	for _, k := range []Kind{KindForm, "attribute", KindPredefinedItem, KindConfiguration} {
		if _, ok := RootPlacement(k); ok {
			t.Errorf("%s placed in the root", k)
		}
	}
	for _, k := range AllKinds() {
		info, _ := Lookup(k)
		if info.Singular.RU == "" || info.Singular.EN == "" {
			t.Errorf("%s: no singular label", k)
		}
		if _, root := RootPlacement(k); root {
			if got, ok := KindOfRootDir(info.Dir); !ok || got != info {
				t.Errorf("%s: folder %s does not map back", k, info.Dir)
			}
		}
	}
	if _, ok := KindOfRootDir("Forms"); ok {
		t.Errorf("Forms is not a root folder")
	}
}
