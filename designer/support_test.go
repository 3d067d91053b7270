package designer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	uuidA = "11111111-1111-1111-1111-111111111111"
	uuidB = "22222222-2222-2222-2222-222222222222"
	uuidC = "33333333-3333-3333-3333-333333333333"
	uuidV = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
	uuidW = "bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb"
	uuidS = "cccccccc-cccc-cccc-cccc-cccccccccccc"
)

// supportText builds a support file: the configuration's mode, then each
// vendor as (id, rules) with rules "mode:uuid[:original]", then trailer.
func supportText(changes int, vendors [][]string, trailer string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\ufeff{6,%d,%d", changes, len(vendors))
	for i, rules := range vendors {
		if i > 0 {
			b.WriteString(",0,0")
		}
		id := uuidV
		if i > 0 {
			id = uuidW
		}
		fmt.Fprintf(&b, ",%s,%d,%s,\"1.%d\",\"Фирма \"\"1С\"\"\",\"Библиотека\",%d", uuidS, changes, id, i, len(rules))
		for _, r := range rules {
			parts := strings.Split(r, ":")
			fmt.Fprintf(&b, ",%s,0,%s", parts[0], parts[1])
			if len(parts) > 2 {
				b.WriteString("," + parts[2])
			} else {
				b.WriteString("," + parts[1])
			}
		}
	}
	b.WriteString(trailer + "}")
	return b.String()
}

// A file with one vendor: its header, every rule with its mode, the
// configuration's change mode and the trailing integers.
func TestParseSupportOneVendor(t *testing.T) {
	data := supportText(0, [][]string{{"1:" + uuidA, "0:" + uuidB, "2:" + strings.ToUpper(uuidC)}}, ",0,1,1")
	s, err := ParseSupport("p.bin", []byte(data), DefaultSupportLimits)
	if err != nil {
		t.Fatal(err)
	}
	if !s.ChangesAllowed || len(s.Vendors) != 1 || s.Trailer != 3 || s.RuleCount() != 3 {
		t.Fatalf("%+v", s)
	}
	v := s.Vendors[0]
	if v.ID != uuidV || v.Snapshot != uuidS || v.Version != "1.0" || v.Vendor != `Фирма "1С"` || v.Name != "Библиотека" {
		t.Errorf("vendor %+v", v)
	}
	for _, c := range []struct {
		uuid string
		mode SupportMode
	}{{uuidA, SupportEditable}, {uuidB, SupportNotEditable}, {uuidC, SupportRemoved}, {strings.ToUpper(uuidA), SupportEditable}} {
		m, vi, ok := s.Rule(c.uuid)
		if !ok || m != c.mode || vi != 0 {
			t.Errorf("%s: %v %d %v", c.uuid, m, vi, ok)
		}
	}
	if _, _, ok := s.Rule(uuidV); ok {
		t.Errorf("a uuid without a rule has one")
	}
	// Each rule's offset is where its mode is written.
	for _, r := range v.Rules {
		if got := data[r.Offset : r.Offset+4]; !strings.HasPrefix(got, fmt.Sprint(int(r.Mode))+",0,") {
			t.Errorf("rule %s at %d reads %q", r.Local, r.Offset, got)
		}
	}
}

// Several vendors: the separator between their blocks, a rule written
// with one uuid, and the most restrictive mode winning for an object that
// several vendors support.
func TestParseSupportSeveralVendors(t *testing.T) {
	data := supportText(0, [][]string{{"1:" + uuidA, "2:" + uuidB}, {"0:" + uuidA, "1:" + uuidB + ":" + uuidC}}, "")
	// The first rule of the second block without its vendor uuid.
	data = strings.Replace(data, "0,0,"+uuidA+","+uuidA, "0,0,"+uuidA, 1)
	s, err := ParseSupport("p.bin", []byte(data), DefaultSupportLimits)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Vendors) != 2 || s.Vendors[1].ID != uuidW || s.Vendors[1].Rules[1].Original != uuidC {
		t.Fatalf("%+v", s.Vendors)
	}
	if m, vi, _ := s.Rule(uuidA); m != SupportNotEditable || vi != 1 {
		t.Errorf("A: %v from %d, want not editable from the second vendor", m, vi)
	}
	if m, vi, _ := s.Rule(uuidB); m != SupportEditable || vi != 1 {
		t.Errorf("B: %v from %d, want editable from the second vendor", m, vi)
	}
}

// A locked configuration, a configuration with no vendors, and an empty
// list.
func TestParseSupportModes(t *testing.T) {
	s, err := ParseSupport("p.bin", []byte(supportText(1, [][]string{{"1:" + uuidA}}, "")), DefaultSupportLimits)
	if err != nil || s.ChangesAllowed {
		t.Fatalf("locked: %v %+v", err, s)
	}
	s, err = ParseSupport("p.bin", []byte("{6,0,0}"), DefaultSupportLimits)
	if err != nil || len(s.Vendors) != 0 || !s.ChangesAllowed {
		t.Fatalf("no vendors: %v %+v", err, s)
	}
	s, err = ParseSupport("p.bin", []byte(" \r\n{ 6 ,\n0 , 0 , 0 , 0 } \r\n"), DefaultSupportLimits)
	if err != nil || s.Trailer != 2 {
		t.Fatalf("white space: %v %+v", err, s)
	}
}

// Every malformed or unexpected input is an error with the reason and
// the byte offset of what is wrong.
func TestParseSupportErrors(t *testing.T) {
	one := supportText(0, [][]string{{"1:" + uuidA}}, "")
	cases := []struct {
		name, data, reason string
		at                 int // -1: anywhere
		msg                string
	}{
		{"empty", "", ReasonMalformed, 0, "does not start"},
		{"not a list", "6,0,0", ReasonMalformed, 0, "does not start"},
		{"unclosed", "{6,0,0", ReasonMalformed, 6, "end of file"},
		{"after", "{6,0,0}x", ReasonMalformed, 7, "after the closing"},
		{"empty value", "{6,,0}", ReasonMalformed, 3, "empty value"},
		{"trailing comma", "{6,0,0,}", ReasonMalformed, 7, "empty value"},
		{"open string", `{6,0,1,"a}`, ReasonMalformed, 7, "not closed"},
		{"missing comma", `{6,0 0}`, ReasonMalformed, 5, "not followed"},
		{"not utf-8", "{6,0,\xff}", ReasonMalformed, 5, "UTF-8"},
		{"format", "{7,0,0}", ReasonInvalidMetadata, 1, "format 7"},
		{"change mode", "{6,2,0}", ReasonInvalidMetadata, 3, "change mode 2"},
		{"nested header", "{6,{0},0}", ReasonInvalidMetadata, 3, "nested list"},
		{"short header", "{6,0}", ReasonInvalidMetadata, 4, "list ends"},
		{"too many vendors", "{6,0,5}", ReasonInvalidMetadata, 5, "do not fit"},
		{"bad mode", strings.Replace(one, "1,0,"+uuidA, "3,0,"+uuidA, 1), ReasonInvalidMetadata, strings.Index(one, "1,0,"+uuidA), "not 0, 1 or 2"},
		{"bad uuid", strings.Replace(one, "1,0,"+uuidA, "1,0,x"+uuidA[1:], 1), ReasonInvalidMetadata, strings.Index(one, "1,0,"+uuidA) + 4, "not a uuid"},
		{"unquoted name", strings.Replace(one, `"Библиотека"`, `Библиотека`, 1), ReasonInvalidMetadata, strings.Index(one, `"Библиотека"`), "not a quoted"},
		{"rules past the end", strings.Replace(one, `"Библиотека",1,`, `"Библиотека",9,`, 1), ReasonInvalidMetadata, strings.Index(one, `"Библиотека",1,`) + len(`"Библиотека",`), "do not fit"},
		{"text in trailer", one[:len(one)-1] + ",x}", ReasonInvalidMetadata, len(one), "not a number"},
	}
	for _, c := range cases {
		_, err := ParseSupport("p.bin", []byte(c.data), DefaultSupportLimits)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: %v, want a ParseError", c.name, err)
			continue
		}
		if pe.Reason != c.reason || (c.at >= 0 && pe.Offset != int64(c.at)) || !strings.Contains(pe.Msg, c.msg) || pe.Path != "p.bin" {
			t.Errorf("%s: %v (reason %s, offset %d), want %s at %d with %q", c.name, err, pe.Reason, pe.Offset, c.reason, c.at, c.msg)
		}
	}
}

// The size and nesting bounds hold at their value and refuse one past it.
func TestParseSupportLimits(t *testing.T) {
	data := []byte("{6,0,0}")
	if _, err := ParseSupport("p.bin", data, SupportLimits{MaxBytes: len(data), MaxDepth: 1}); err != nil {
		t.Errorf("at the size limit: %v", err)
	}
	var pe *ParseError
	if _, err := ParseSupport("p.bin", data, SupportLimits{MaxBytes: len(data) - 1, MaxDepth: 1}); !errors.As(err, &pe) || pe.Reason != ReasonTooLarge {
		t.Errorf("one byte over the size limit: %v", err)
	}
	nested := func(depth int) []byte {
		return []byte(strings.Repeat("{", depth) + strings.Repeat("}", depth))
	}
	// At the depth limit the nesting itself is accepted; the content is
	// then not a support file.
	if _, err := ParseSupport("p.bin", nested(4), SupportLimits{MaxBytes: 100, MaxDepth: 4}); !errors.As(err, &pe) || pe.Reason == ReasonTooDeep {
		t.Errorf("at the depth limit: %v", err)
	}
	if _, err := ParseSupport("p.bin", nested(5), SupportLimits{MaxBytes: 100, MaxDepth: 4}); !errors.As(err, &pe) || pe.Reason != ReasonTooDeep || pe.Offset != 4 {
		t.Errorf("one past the depth limit: %v", err)
	}
}

func FuzzParseSupport(f *testing.F) {
	f.Add([]byte(supportText(0, [][]string{{"1:" + uuidA, "0:" + uuidB}}, ",0,1")))
	f.Add([]byte(supportText(1, [][]string{{"1:" + uuidA}, {"2:" + uuidB + ":" + uuidC}}, "")))
	f.Add([]byte(`{6,0,1,{1,"a""b"},"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSupport("f.bin", data, SupportLimits{MaxBytes: 1 << 16, MaxDepth: 8})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Offset > int64(len(data)) {
				t.Fatalf("%v", err)
			}
			return
		}
		for _, v := range s.Vendors {
			for _, r := range v.Rules {
				if r.Offset < 0 || r.Offset >= int64(len(data)) || r.Mode > SupportRemoved || !IsUUID(r.Local) {
					t.Fatalf("rule %+v of %d bytes", r, len(data))
				}
				if m, _, ok := s.Rule(r.Local); !ok || m.restrictiveness() > r.Mode.restrictiveness() {
					t.Fatalf("rule of %s: %v %v, a vendor says %v", r.Local, m, ok, r.Mode)
				}
			}
		}
	})
}

// BenchmarkParseSupport parses SSL 3.1's ParentConfigurations.bin from
// $DESIGNER_CORPUS (the shared corpora extracted), or a file of 8,119
// rules made here.
func BenchmarkParseSupport(b *testing.B) {
	var data []byte
	if root := os.Getenv("DESIGNER_CORPUS"); root != "" {
		var err error
		if data, err = os.ReadFile(filepath.Join(root, "ssl_3_1", "src", "cf", filepath.FromSlash(SupportFile))); err != nil {
			b.Fatal(err)
		}
	} else {
		rules := make([]string, 8119)
		for i := range rules {
			rules[i] = fmt.Sprintf("1:%08x-1111-1111-1111-111111111111", i)
		}
		data = []byte(supportText(1, [][]string{rules}, ",0,0,0,1"))
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ParseSupport("p.bin", data, DefaultSupportLimits); err != nil {
			b.Fatal(err)
		}
	}
}
