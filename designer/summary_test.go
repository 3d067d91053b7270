package designer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// ParseDescriptorSummary is held to ParseDescriptor: the same descriptor
// apart from the element trees, the same error for every input refused.

// summaryDiff parses data both ways and describes the first difference,
// "" if none. Besides the descriptor and the error it checks that the
// pruned tree is the full tree with subtrees left out: every element built
// is equal to its counterpart but for Children, which are a subsequence
// of the counterpart's.
func summaryDiff(data []byte, lim Limits) string {
	want, wantErr := ParseDescriptor("f.xml", data, lim)
	got, gotErr := ParseDescriptorSummary("f.xml", data, lim)
	if wantErr != nil || gotErr != nil {
		var wp, gp *ParseError
		if !errors.As(wantErr, &wp) || !errors.As(gotErr, &gp) {
			return fmt.Sprintf("errors: ParseDescriptor %v; summary %v", wantErr, gotErr)
		}
		if *wp != *gp {
			return fmt.Sprintf("errors differ: ParseDescriptor %+v; summary %+v", *wp, *gp)
		}
		if want != nil || got != nil {
			return "a descriptor beside the error"
		}
		return ""
	}
	if d := descriptorDiff(want, got); d != "" {
		return d
	}
	if want.IsExtension() != got.IsExtension() {
		return fmt.Sprintf("IsExtension %v vs %v", want.IsExtension(), got.IsExtension())
	}
	if want.ExternalTag() != got.ExternalTag() {
		return fmt.Sprintf("ExternalTag %q vs %q", want.ExternalTag(), got.ExternalTag())
	}
	return prunedDiff(want.Root, got.Root, "")
}

// descriptorDiff compares two descriptors on everything but their element
// trees (Root, Object.El): "" if equal, else the first difference.
func descriptorDiff(a, b *Descriptor) string {
	if (a == nil) != (b == nil) {
		return fmt.Sprintf("descriptor %v vs %v", a, b)
	}
	if a == nil {
		return ""
	}
	if a.Path != b.Path || a.Version != b.Version {
		return fmt.Sprintf("path/version %q %q vs %q %q", a.Path, a.Version, b.Path, b.Version)
	}
	if len(a.Diagnostics) != len(b.Diagnostics) {
		return fmt.Sprintf("diagnostics %v vs %v", a.Diagnostics, b.Diagnostics)
	}
	for i := range a.Diagnostics {
		x, y := a.Diagnostics[i], b.Diagnostics[i]
		if x.Code != y.Code || (x.Range == nil) != (y.Range == nil) ||
			(x.Range != nil && *x.Range != *y.Range) || !slices.Equal(x.Details, y.Details) {
			return fmt.Sprintf("diagnostic %d: %v vs %v", i, x, y)
		}
	}
	return objectDiff(a.Object, b.Object, "object")
}

func objectDiff(a, b *Object, path string) string {
	if (a == nil) != (b == nil) {
		return fmt.Sprintf("%s: %v vs %v", path, a, b)
	}
	if a == nil {
		return ""
	}
	path += "/" + a.Name
	if a.Info != b.Info || a.Name != b.Name || a.UUID != b.UUID {
		return fmt.Sprintf("%s: info/name/uuid %v %q %q vs %v %q %q", path, a.Info, a.Name, a.UUID, b.Info, b.Name, b.UUID)
	}
	if !slices.Equal(a.Synonyms, b.Synonyms) || (a.Synonyms == nil) != (b.Synonyms == nil) {
		return fmt.Sprintf("%s: synonyms %#v vs %#v", path, a.Synonyms, b.Synonyms)
	}
	if (a.El == nil) != (b.El == nil) {
		return fmt.Sprintf("%s: element %v vs %v", path, a.El, b.El)
	}
	if len(a.Children) != len(b.Children) {
		return fmt.Sprintf("%s: %d children vs %d", path, len(a.Children), len(b.Children))
	}
	for i := range a.Children {
		x, y := a.Children[i], b.Children[i]
		if x.Tag != y.Tag || x.Info != y.Info || x.Name != y.Name || x.Range != y.Range {
			return fmt.Sprintf("%s: child %d: %+v vs %+v", path, i, *x, *y)
		}
		if d := objectDiff(x.Inline, y.Inline, fmt.Sprintf("%s/%d", path, i)); d != "" {
			return d
		}
	}
	return ""
}

// prunedDiff checks that got is want with some subtrees left out.
func prunedDiff(want, got *Element, path string) string {
	if want == nil || got == nil {
		if want != got {
			return fmt.Sprintf("%s: %v vs %v", path, want, got)
		}
		return ""
	}
	path += "/" + want.Local
	if want.Space != got.Space || want.Local != got.Local || want.Text != got.Text || want.Mixed != got.Mixed ||
		want.Start != got.Start || want.End != got.End || !reflect.DeepEqual(want.Attrs, got.Attrs) {
		return fmt.Sprintf("%s: element %+v vs %+v", path, *want, *got)
	}
	i := 0
	for _, g := range got.Children {
		for i < len(want.Children) && want.Children[i].Start != g.Start {
			i++
		}
		if i == len(want.Children) {
			return fmt.Sprintf("%s: child %s@%d not in the full tree", path, g.Local, g.Start)
		}
		if d := prunedDiff(want.Children[i], g, path); d != "" {
			return d
		}
		i++
	}
	return ""
}

// summaryDescriptorCases are the inputs of the descriptor tests.
var summaryDescriptorCases = []string{
	"\ufeff" + strings.ReplaceAll(head+`<m:MetaDataObject xmlns:m="http://v8.1c.ru/8.3/MDClasses" xmlns:v="http://v8.1c.ru/8.1/data/core" version="2.99">
<m:Catalog uuid="u1"><m:Properties><m:Name>Товары</m:Name><m:Synonym><v:item><v:lang>ru</v:lang><v:content>Товары склада</v:content></v:item></m:Synonym></m:Properties>
<m:ChildObjects><m:Attribute uuid="u1"><m:Properties><m:Name>Код</m:Name></m:Properties></m:Attribute><m:Form>Форма</m:Form></m:ChildObjects></m:Catalog>
</m:MetaDataObject>`, "\n", "\r\n"),
	`<MetaDataObject xmlns="urn:foreign"><Configuration/></MetaDataObject>`,
	`<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses"><FutureObject><Properties><Name>Б</Name></Properties></FutureObject></MetaDataObject>`,
	`<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses"/>`,
	`<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses"><Catalog><Properties><Name>К</Name></Properties><ChildObjects><Gadget>Г</Gadget><Form>Ф</Form></ChildObjects></Catalog></MetaDataObject>`,
	`<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses"><Catalog><Properties><Name>К</Name></Properties><ChildObjects><Form> </Form></ChildObjects></Catalog></MetaDataObject>`,
	`<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses"><Catalog><Properties><Name>К</Name></Properties><ChildObjects><Form>Ф</Form><Form>Ф</Form></ChildObjects></Catalog></MetaDataObject>`,
	`<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses"><Catalog><Properties/></Catalog></MetaDataObject>`,
	`<MetaDataObject`,
	`<!DOCTYPE x [<!ENTITY a "b">]><x/>`,
	`<?xml version="1.0" encoding="windows-1251"?><x/>`,
	"<x>\xff</x>",
	`<x/><y/>`,
	``,
	strings.Repeat("<a>", 10) + strings.Repeat("</a>", 10),
	`<x/>`,
	`<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses"><Catalog><Properties><Name>К</Name></Properties><ChildObjects><Form>Ф</Form><Attribute><Properties><Name>А</Name></Properties></Attribute></ChildObjects></Catalog></MetaDataObject>`,
	"\ufeff<m:MetaDataObject xmlns:m=\"http://v8.1c.ru/8.3/MDClasses\"/>",
	`<PredefinedData xmlns="http://v8.1c.ru/8.3/xcf/predef"><Item><Name>А</Name></Item></PredefinedData>`,
}

const md = `<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses" xmlns:v8="http://v8.1c.ru/8.1/data/core" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="2.17">`

// summaryVariations are descriptors that probe what the summary scan
// builds and skips: text beside skipped children, skipped children
// before the kept ones, repeated elements, prefixes, unknown kinds,
// nested inline objects, and errors of every kind inside skipped
// subtrees.
var summaryVariations = []string{
	// Names and synonyms.
	md + `<Catalog uuid="c"><Properties><Name>a<b/>c</Name></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Name><x>К</x></Name></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Name> К <!-- c --> Л <![CDATA[М]]>&amp;&#x41;</Name></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Name/><Name>Второе</Name></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Comment>x</Comment><Name>К</Name><Name>Л</Name></Properties><Properties><Name>М</Name></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Synonym><v8:item><v8:lang>ru</v8:lang><v8:content>Р<v8:x/>С</v8:content></v8:item><other/><v8:item><v8:content> с </v8:content><v8:lang>en</v8:lang><v8:lang>de</v8:lang></v8:item><v8:item/></Synonym><Name>К</Name><Synonym><v8:item><v8:lang>zz</v8:lang></v8:item></Synonym></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Name>К</Name><Synonym>text<v8:item>t<v8:lang>ru<a/></v8:lang>u<v8:content>x</v8:content>v<q/></v8:item>w</Synonym></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Name>К</Name><Synonym/></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Name>К</Name><Synonym><item><lang>ru</lang><content>без префикса</content></item></Synonym></Properties></Catalog></MetaDataObject>`,
	// Configuration and extension.
	md + `<Configuration><Properties><Name>К</Name><ConfigurationExtensionPurpose>Customization</ConfigurationExtensionPurpose></Properties><ChildObjects><Catalog>А</Catalog><Language>Русский</Language></ChildObjects></Configuration></MetaDataObject>`,
	md + `<Configuration><Properties><Name>К</Name><ConfigurationExtensionPurpose><x/></ConfigurationExtensionPurpose></Properties></Configuration></MetaDataObject>`,
	md + `<Configuration><Properties><Name>К</Name></Properties><ConfigurationExtensionPurpose/></Configuration></MetaDataObject>`,
	md + `<ExternalDataProcessor uuid="e"><Properties><Name>Обработка</Name></Properties><ChildObjects><Form>Ф</Form></ChildObjects></ExternalDataProcessor></MetaDataObject>`,
	// Root and object.
	md + `<Catalog><Properties><Name>К</Name></Properties></Catalog><Extra><Deep><x/></Deep></Extra><Catalog/></MetaDataObject>`,
	md + `text<Catalog><Properties><Name>К</Name></Properties></Catalog>more</MetaDataObject>`,
	md + `<x:Catalog xmlns:x="urn:other"><Properties><Name>К</Name></Properties></x:Catalog></MetaDataObject>`,
	md + `<Catalog xmlns="urn:other"><Properties><Name>К</Name></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog/></MetaDataObject>`,
	md + `<Catalog>К</Catalog></MetaDataObject>`,
	md + `</MetaDataObject>`,
	`<m:MetaDataObject xmlns:m="http://v8.1c.ru/8.3/MDClasses" version='1'><m:Document m:uuid="d"><m:Properties><m:Name>Д</m:Name></m:Properties></m:Document></m:MetaDataObject>`,
	`<MetaDataObject xmlns:m="http://v8.1c.ru/8.3/MDClasses"><m:Catalog><m:Properties><m:Name>К</m:Name></m:Properties></m:Catalog></MetaDataObject>`,
	`<Other xmlns="http://v8.1c.ru/8.3/MDClasses"><Catalog><Properties><Name>К</Name></Properties></Catalog></Other>`,
	// ChildObjects entries.
	md + `<Catalog><Properties><Name>К</Name></Properties><ChildObjects>
		<Attribute uuid="a"><InternalInfo><x/></InternalInfo><Properties><Comment/><Name>А</Name><Type><v8:Type>xs:string</v8:Type></Type></Properties></Attribute>
		<Attribute><InternalInfo/></Attribute>
		<Attribute>x<InternalInfo/>y</Attribute>
		<Attribute>Имя<!-- c -->Ссылки</Attribute>
		<Attribute><Properties/></Attribute>
		<Attribute><Properties><Name>Б</Name></Properties><Properties><Name>В</Name></Properties></Attribute>
		<Gadget><Properties><Name>Г</Name></Properties></Gadget>
		<Gadget><Other/></Gadget>
		<x:Attribute xmlns:x="urn:x"><Properties><Name>Д</Name></Properties></x:Attribute>
		<TabularSection uuid="t"><Properties><Name>Т</Name><Synonym><v8:item><v8:lang>ru</v8:lang><v8:content>Таблица</v8:content></v8:item></Synonym></Properties><ChildObjects><Attribute><Properties><Name>Е</Name></Properties></Attribute><Attribute><Properties><Name>Е</Name></Properties></Attribute><Attribute/></ChildObjects></TabularSection>
		<Form>Ф</Form><Form>Ф</Form><Form> </Form><Template>Т<x/></Template>
	</ChildObjects><ChildObjects><Form>Второй</Form></ChildObjects></Catalog></MetaDataObject>`,
	md + `<Catalog><ChildObjects><Attribute><ChildObjects><Attribute><Properties><Name>Глубже</Name></Properties></Attribute></ChildObjects><Properties><Name>А</Name></Properties></Attribute></ChildObjects><Properties><Name>К</Name></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Name>К</Name></Properties><ChildObjects/></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Name>К</Name></Properties><ChildObjects>mixed<Form>Ф</Form>text</ChildObjects></Catalog></MetaDataObject>`,
	// Skipped subtrees with namespaces, references and odd attributes.
	md + `<Catalog><Properties><Type xmlns:p="urn:p" p:x="&lt;&#1103;" y='"'><p:a xmlns="urn:q"><b c="1&#13;2"/></p:a></Type><Name xmlns:n="urn:n" n:a="1">К</Name></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Name>К</Name><Other><Synonym><v8:item><v8:lang>ru</v8:lang></v8:item></Synonym></Other></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Name>К</Name><Deep><a><b><c><d><e/></d></c></b></a></Deep></Properties></Catalog></MetaDataObject>`,
	// Errors inside skipped subtrees.
	md + `<Catalog><Properties><Name>К</Name><Type>&bad;</Type></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type x="&bad;"/></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type x="<"/></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type x=1/></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type>` + "\xff" + `</Type></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type x="` + "\xc0\x80" + `"/></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type>` + "\x01" + `</Type></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type>&#0;</Type></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type>]]></Type></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type><![CDATA[` + "\x02" + `]]></Type></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type><!DOCTYPE x></Type></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type><?xml encoding="latin1"?></Type></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type><!-- a -- b --></Type></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type></Typ></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><p:Type></q:Type></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type><a:b:c/></Type></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type><1a/></Type></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type ` + "\u00a0" + `="1"/></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type><Тип ё="1"/></Type></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type>` + nest(200) + `</Type></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type>` + nest(200) + `&bad;</Type></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type><a>` + "\xff" + `</Type></Properties></Catalog></MetaDataObject>`,
	md + `<Catalog><Properties><Type>`,
	md + `<Catalog><Properties><Type x="1`,
	md + `<Catalog><Properties><Name>К</Name></Properties></Catalog></MetaDataObject><x/>`,
	md + `<Catalog><Properties><Name>К</Name></Properties></Catalog></MetaDataObject>tail`,
}

// summaryInputs are all the fixed inputs: the descriptor tests', the
// scanner tests', the variations and synthetic descriptors.
func summaryInputs() [][]byte {
	var in [][]byte
	for _, s := range summaryDescriptorCases {
		in = append(in, []byte(s))
	}
	for _, c := range xmlCases {
		in = append(in, []byte(c.in))
	}
	for _, s := range summaryVariations {
		in = append(in, []byte(s))
		in = append(in, []byte("\ufeff"+strings.ReplaceAll(s, "><", ">\r\n\t<")))
	}
	in = append(in, syntheticDescriptor(0), syntheticDescriptor(3))
	return in
}

var summaryLimits = []Limits{
	DefaultLimits,
	{MaxBytes: 1 << 20, MaxDepth: 3},
	{MaxBytes: 1 << 20, MaxDepth: 6},
	{MaxBytes: 100, MaxDepth: 128},
}

func TestParseDescriptorSummary(t *testing.T) {
	n := 0
	for i, data := range summaryInputs() {
		for _, lim := range summaryLimits {
			n++
			if d := summaryDiff(data, lim); d != "" {
				t.Errorf("input %d %q, limits %+v: %s", i, data, lim, d)
			}
		}
	}
	t.Logf("%d comparisons", n)
}

// A summary builds a small part of a large descriptor, and what it
// builds is what the index reads.
func TestParseDescriptorSummaryPrunes(t *testing.T) {
	data := syntheticDescriptor(20)
	full, err := ParseDescriptor("s.xml", data, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ParseDescriptorSummary("s.xml", data, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	count := func(e *Element) int {
		n := 0
		var walk func(*Element)
		walk = func(e *Element) {
			n++
			for _, c := range e.Children {
				walk(c)
			}
		}
		walk(e)
		return n
	}
	nf, ns := count(full.Root), count(sum.Root)
	// Per attribute: entry, Properties, Name, Synonym, item, lang,
	// content.
	if want := 2 + 7*21; ns != want {
		t.Errorf("summary tree has %d elements, want %d (full tree %d)", ns, want, nf)
	}
	if p := sum.Object.Properties(); p == nil || len(p.Children) != 2 || p.Child("Comment") != nil || p.Child("Name").Text != "Контрагенты" {
		t.Errorf("pruned properties %+v", p)
	}
	allocated := func(f func(string, []byte, Limits) (*Descriptor, error)) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 20 {
			f("s.xml", data, DefaultLimits)
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / 20
	}
	allocated(ParseDescriptorSummary) // warm the scanner pool and intern table
	// Loosely: the race detector drops pooled scanners at random, and
	// their scratch memory with them.
	if af, as := allocated(ParseDescriptor), allocated(ParseDescriptorSummary); as >= af {
		t.Errorf("summary allocates %d bytes, full parse %d", as, af)
	} else {
		t.Logf("summary allocates %d bytes, full parse %d", as, af)
	}
}

func FuzzParseDescriptorSummary(f *testing.F) {
	for _, s := range summaryDescriptorCases {
		f.Add([]byte(s))
	}
	for _, s := range summaryVariations {
		f.Add([]byte(s))
	}
	f.Add(syntheticDescriptor(2))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, lim := range []Limits{{MaxBytes: 1 << 16, MaxDepth: 32}, {MaxBytes: 1 << 16, MaxDepth: 5}} {
			if d := summaryDiff(data, lim); d != "" {
				t.Fatalf("%q, limits %+v: %s", data, lim, d)
			}
		}
	})
}

// descriptorBenchInputs are, from $DESIGNER_CORPUS, the largest
// descriptor (Configuration.xml in SSL, mostly ChildObjects references)
// and the largest object descriptor that is not a Configuration (mostly
// Properties); else a synthetic descriptor.
func descriptorBenchInputs(b *testing.B) map[string][]byte {
	root := os.Getenv("DESIGNER_CORPUS")
	if root == "" {
		return map[string][]byte{"synthetic": syntheticDescriptor(160)}
	}
	var largest, object string
	var largestSize, objectSize int64
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".xml" || strings.Contains(path, string(filepath.Separator)+"Ext"+string(filepath.Separator)) {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if info.Size() > largestSize {
			largest, largestSize = path, info.Size()
		}
		if filepath.Base(path) != "Configuration.xml" && info.Size() > objectSize {
			object, objectSize = path, info.Size()
		}
		return nil
	})
	out := map[string][]byte{}
	for name, path := range map[string]string{"largest": largest, "object": object} {
		if path == "" {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("%s: %s, %d bytes", name, path, len(data))
		out[name] = data
	}
	if len(out) == 0 {
		out["synthetic"] = syntheticDescriptor(160)
	}
	return out
}

func benchDescriptor(b *testing.B, parse func(string, []byte, Limits) (*Descriptor, error)) {
	inputs := descriptorBenchInputs(b)
	names := make([]string, 0, len(inputs))
	for name := range inputs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		data := inputs[name]
		b.Run(name, func(b *testing.B) { benchOne(b, data, parse) })
	}
}

func BenchmarkParseDescriptor(b *testing.B)        { benchDescriptor(b, ParseDescriptor) }
func BenchmarkParseDescriptorSummary(b *testing.B) { benchDescriptor(b, ParseDescriptorSummary) }

func BenchmarkParseDescriptorCorpus(b *testing.B) { benchCorpus(b, ParseDescriptor) }
func BenchmarkParseDescriptorSummaryCorpus(b *testing.B) {
	benchCorpus(b, ParseDescriptorSummary)
}
