package strictjson

import (
	"math"
	"strings"
	"testing"
	"time"
)

func num(t *testing.T, lit string) *Value {
	t.Helper()
	v, err := Parse([]byte(lit), Options{})
	if err != nil {
		t.Fatalf("Parse(%.40q): %v", lit, err)
	}
	if v.Kind != Number || v.Str != lit {
		t.Fatalf("Parse(%.40q) = %v %.40q", lit, v.Kind, v.Str)
	}
	return v
}

func TestInt64Uint64(t *testing.T) {
	cases := []struct {
		lit    string
		i      int64
		iok    bool
		u      uint64
		uok    bool
		reason string
	}{
		{"0", 0, true, 0, true, ""},
		{"-0", 0, true, 0, true, "negative zero is zero"},
		{"-0.0e5", 0, true, 0, true, ""},
		{"0e1000000000", 0, true, 0, true, "zero with a huge exponent"},
		{"1", 1, true, 1, true, ""},
		{"-1", -1, true, 0, false, "negative is not a uint"},
		{"1.0", 1, true, 1, true, ""},
		{"1.000000000000000000000000000000", 1, true, 1, true, "long zero fraction"},
		{"1e2", 100, true, 100, true, ""},
		{"1E+2", 100, true, 100, true, ""},
		{"1.50e1", 15, true, 15, true, ""},
		{"0.1e1", 1, true, 1, true, ""},
		{"150e-1", 15, true, 15, true, ""},
		{"1.5", 0, false, 0, false, "fraction"},
		{"-1.5", 0, false, 0, false, ""},
		{"1e-1", 0, false, 0, false, ""},
		{"0.5e1", 5, true, 5, true, ""},
		{"12345678901234567890e-10", 0, false, 0, false, "not integral"},
		{"12345678901234567890e-1", 1234567890123456789, true, 1234567890123456789, true, ""},
		{"9223372036854775807", math.MaxInt64, true, math.MaxInt64, true, ""},
		{"9223372036854775808", 0, false, 1 << 63, true, "int64 overflow but uint64"},
		{"-9223372036854775808", math.MinInt64, true, 0, false, ""},
		{"-9223372036854775809", 0, false, 0, false, ""},
		{"-92233720368547758.08e2", math.MinInt64, true, 0, false, ""},
		{"18446744073709551615", 0, false, math.MaxUint64, true, ""},
		{"18446744073709551616", 0, false, 0, false, "uint64 overflow"},
		{"1.8446744073709551615e19", 0, false, math.MaxUint64, true, ""},
		{"1.8446744073709551616e19", 0, false, 0, false, ""},
		{"99999999999999999999", 0, false, 0, false, "20 digits over"},
		{"100000000000000000000", 0, false, 0, false, "21 digits"},
		{"1e19", 0, false, 1e19, true, ""},
		{"1e20", 0, false, 0, false, ""},
		{"1e400", 0, false, 0, false, ""},
		{"1e1000000000", 0, false, 0, false, "huge exponent"},
		{"1e-1000000000", 0, false, 0, false, "huge negative exponent"},
		{"1e99999999999999999999999999999999", 0, false, 0, false, "exponent beyond int64"},
		{"10000000000000000000000000000000000000e-36", 10, true, 10, true, "long mantissa scaled down"},
	}
	for _, c := range cases {
		v := num(t, c.lit)
		i, iok := v.Int64()
		if iok != c.iok || i != c.i {
			t.Errorf("Int64(%s) = %d, %v; want %d, %v %s", c.lit, i, iok, c.i, c.iok, c.reason)
		}
		u, uok := v.Uint64()
		if uok != c.uok || u != c.u {
			t.Errorf("Uint64(%s) = %d, %v; want %d, %v %s", c.lit, u, uok, c.u, c.uok, c.reason)
		}
	}
	// Non-numbers.
	for _, in := range []string{`"1"`, `true`, `null`, `[1]`} {
		v, _ := Parse([]byte(in), Options{})
		if _, ok := v.Int64(); ok {
			t.Errorf("Int64(%s) ok", in)
		}
		if _, ok := v.Uint64(); ok {
			t.Errorf("Uint64(%s) ok", in)
		}
		if _, ok := v.Float64(); ok {
			t.Errorf("Float64(%s) ok", in)
		}
	}
	var nilv *Value
	if _, ok := nilv.Int64(); ok {
		t.Error("nil Int64 ok")
	}
	// A hand-built Value with a non-JSON literal must not panic.
	for _, lit := range []string{"", "-", "1.", "abc", "1e", "--1"} {
		v := &Value{Kind: Number, Str: lit}
		if _, ok := v.Int64(); ok {
			t.Errorf("Int64(%q) ok", lit)
		}
	}
}

func TestFloat64(t *testing.T) {
	cases := []struct {
		lit string
		f   float64
		ok  bool
	}{
		{"0", 0, true},
		{"-0", math.Copysign(0, -1), true},
		{"1.5", 1.5, true},
		{"1e2", 100, true},
		{"0.1e1", 1, true},
		{"9223372036854775808", 9223372036854775808, true},
		{"1.7976931348623157e308", math.MaxFloat64, true},
		{"5e-324", 5e-324, true},
		{"1e-400", 0, true},
		{"1e400", 0, false},
		{"-1e400", 0, false},
		{"1.8e308", 0, false},
		{"1e1000000000", 0, false},
		{"1e-1000000000", 0, true},
	}
	for _, c := range cases {
		v := num(t, c.lit)
		f, ok := v.Float64()
		if ok != c.ok || f != c.f || math.Signbit(f) != math.Signbit(c.f) {
			t.Errorf("Float64(%s) = %v, %v; want %v, %v", c.lit, f, ok, c.f, c.ok)
		}
	}
}

// TestHugeNumbers checks that enormous literals are handled in time
// proportional to their length, without building big numbers.
func TestHugeNumbers(t *testing.T) {
	lits := []string{
		"1e" + strings.Repeat("9", 100000),
		"-1e-" + strings.Repeat("9", 100000),
		"1" + strings.Repeat("0", 100000),
		"0." + strings.Repeat("0", 100000) + "1e100000",
		"1" + strings.Repeat("0", 100000) + "e-100000",
		strings.Repeat("7", 100000) + "." + strings.Repeat("3", 100000),
	}
	start := time.Now()
	for _, lit := range lits {
		v := num(t, lit)
		v.Int64()
		v.Uint64()
		v.Float64()
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("huge numbers took %v", d)
	}
	if i, ok := num(t, "0."+strings.Repeat("0", 100000)+"1e100001").Int64(); !ok || i != 1 {
		t.Errorf("scaled tiny number = %d, %v", i, ok)
	}
	if i, ok := num(t, "1"+strings.Repeat("0", 100000)+"e-100000").Int64(); !ok || i != 1 {
		t.Errorf("scaled huge number = %d, %v", i, ok)
	}
	allocs := testing.AllocsPerRun(10, func() {
		v := &Value{Kind: Number, Str: "1e1000000000"}
		v.Int64()
		v.Uint64()
	})
	if allocs != 0 {
		t.Errorf("Int64 allocated %v times", allocs)
	}
}
