package schemaemit

import (
	"regexp"
	"strconv"
	"testing"
)

// The decimal-u64 pattern accepts exactly the canonical spellings of
// 0..2^64−1: the maximum is accepted and one past it rejected.
func TestU64Pattern(t *testing.T) {
	re := regexp.MustCompile(U64Pattern)
	for _, s := range []string{"0", "1", "9", "10", "18446744073709551615", "18446744073709551609",
		"17999999999999999999", "9999999999999999999", "18446744073709551599", "18446744073699999999"} {
		if !re.MatchString(s) {
			t.Errorf("%s rejected", s)
		}
		if _, err := strconv.ParseUint(s, 10, 64); err != nil {
			t.Errorf("test value %s is not a uint64", s)
		}
	}
	for _, s := range []string{"18446744073709551616", "18446744073709551620", "18446744073709552000",
		"19000000000000000000", "28446744073709551615", "99999999999999999999", "100000000000000000000",
		"01", "00", "-1", "+1", "", "1.0", " 1"} {
		if re.MatchString(s) {
			t.Errorf("%s accepted", s)
		}
	}
	// Exhaustive agreement with strconv around the boundary.
	for d := uint64(0); d < 2000; d++ {
		s := strconv.FormatUint(^uint64(0)-d, 10)
		if !re.MatchString(s) {
			t.Errorf("%s rejected", s)
		}
	}
	for _, s := range []string{"18446744073709551616", "18446744073709551617", "18446744073709551700"} {
		if re.MatchString(s) {
			t.Errorf("%s accepted", s)
		}
	}
}
