package genrt

import (
	"errors"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/runtime/strictjson"
)

func parse(t *testing.T, s string) *strictjson.Value {
	t.Helper()
	v, err := strictjson.Parse([]byte(s), strictjson.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Integers of the contract are the safe integers: at the limit accepted,
// one past it rejected.
func TestIntegerLimits(t *testing.T) {
	for _, c := range []struct {
		in   string
		ok   bool
		want int64
	}{
		{"9007199254740991", true, MaxSafeInteger},
		{"-9007199254740991", true, MinSafeInteger},
		{"9007199254740992", false, 0},
		{"-9007199254740992", false, 0},
		{"1.0", true, 1},
		{"1e2", true, 100},
		{"-0", true, 0},
		{"1.5", false, 0},
		{"1e400", false, 0},
		{`"1"`, false, 0},
	} {
		n, err := Integer(parse(t, c.in), "/n")
		if (err == nil) != c.ok || (c.ok && n != c.want) {
			t.Errorf("Integer(%s) = %d, %v; want ok=%v %d", c.in, n, err, c.ok, c.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "/n: ") {
			t.Errorf("Integer(%s) error %q lacks the pointer", c.in, err)
		}
	}
}

func TestDecimalU64Limits(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{`"0"`, true}, {`"18446744073709551615"`, true}, {`"18446744073709551616"`, false},
		{`"01"`, false}, {`"-1"`, false}, {`"+1"`, false}, {`""`, false}, {`" 1"`, false}, {`1`, false},
	} {
		_, err := DecimalU64(parse(t, c.in), "")
		if (err == nil) != c.ok {
			t.Errorf("DecimalU64(%s): %v, want ok=%v", c.in, err, c.ok)
		}
	}
}

func TestLengthAndItemsLimits(t *testing.T) {
	if err := Length("абв", "", 3, 3); err != nil {
		t.Errorf("3 Cyrillic characters against 3..3: %v (length counts characters, not bytes)", err)
	}
	if err := Length("абвг", "", 3, 3); err == nil {
		t.Error("4 characters against a maximum of 3 accepted")
	}
	if err := Length("аб", "", 3, -1); err == nil {
		t.Error("2 characters against a minimum of 3 accepted")
	}
	if err := Items(5, "", 0, 5); err != nil {
		t.Error(err)
	}
	if err := Items(6, "", 0, 5); err == nil {
		t.Error("6 items against a maximum of 5 accepted")
	}
}

func TestWithCode(t *testing.T) {
	err := WithCode(Invalid("/a", "bad"), -32602)
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Code != -32602 || ve.Pointer != "/a" || err.Error() != "/a: bad" {
		t.Errorf("WithCode: %#v", err)
	}
	_, perr := strictjson.Parse([]byte(`{"a":}`), strictjson.Options{})
	err = WithCode(perr, -32602)
	if !errors.As(err, &ve) || ve.Code != -32602 || !strings.Contains(ve.Message, "invalid JSON") {
		t.Errorf("WithCode(parse error): %#v", err)
	}
}

func TestWriters(t *testing.T) {
	b, err := WriteRawObject(nil, nil)
	if err != nil || string(b) != "{}" {
		t.Errorf("empty object = %s", b)
	}
	if _, err := AppendNumber(nil, 0, "x"); err != nil {
		t.Error(err)
	}
	var inf float64 = 1
	for i := 0; i < 2000; i++ {
		inf *= 10
	}
	if _, err := AppendNumber(nil, inf, "x"); err == nil {
		t.Error("infinity written as JSON")
	}
	if got := string(Key([]byte("{"), 1, "a")); got != `{"a":` {
		t.Errorf("first key = %s", got)
	}
	if got := string(Key([]byte(`{"a":1`), 1, "b")); got != `{"a":1,"b":` {
		t.Errorf("second key = %s", got)
	}
}

func TestParseVersion(t *testing.T) {
	good := []struct {
		in           string
		major, minor int64
	}{
		{"0.0", 0, 0},
		{"1.1", 1, 1},
		{"1.10", 1, 10},
		{"01.02", 1, 2},
		{"9223372036854775807.0", 9223372036854775807, 0},
	}
	for _, c := range good {
		major, minor, ok := ParseVersion(c.in)
		if !ok || major != c.major || minor != c.minor {
			t.Errorf("ParseVersion(%q) = %d, %d, %v, want %d, %d, true", c.in, major, minor, ok, c.major, c.minor)
		}
	}
	for _, in := range []string{"", "1", "1.", ".1", "1.2.3", "+1.2", "1.-2", "-0.1", "1.x", " 1.2", "1.2 ", "9223372036854775808.0", "1.9223372036854775808", "١.٢"} {
		if major, minor, ok := ParseVersion(in); ok {
			t.Errorf("ParseVersion(%q) = %d, %d, true, want not ok", in, major, minor)
		}
	}
}

// Whatever ParseVersion accepts is two digit runs around one dot, and the
// numbers it returns are written back by FormatVersion to a version that
// parses to the same numbers.
func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"1.1", "01.10", "1", "1.2.3", "+1.2", "9223372036854775808.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		major, minor, ok := ParseVersion(s)
		if !ok {
			return
		}
		if strings.Count(s, ".") != 1 || strings.Trim(s, "0123456789.") != "" {
			t.Fatalf("ParseVersion(%q) accepted it", s)
		}
		m2, n2, ok2 := ParseVersion(FormatVersion(major, minor))
		if !ok2 || m2 != major || n2 != minor {
			t.Fatalf("ParseVersion(FormatVersion(%d, %d)) = %d, %d, %v", major, minor, m2, n2, ok2)
		}
	})
}
