//go:build corpus

package designer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseSupportCorpus reads SSL 3.1's ParentConfigurations.bin and
// compares it with a count made independently: the file's text split at
// commas, the rules found as a mode, a zero and a uuid in a row.
func TestParseSupportCorpus(t *testing.T) {
	path := filepath.Join(corpusRoot(t), "ssl_3_1", "src", "cf", filepath.FromSlash(SupportFile))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSupport(path, data, DefaultSupportLimits)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(string(data), "\ufeff"), "{"), "}")
	items := strings.Split(text, ",")
	rules := map[string]int{}
	for i := 0; i+2 < len(items); i++ {
		if (items[i] == "0" || items[i] == "1" || items[i] == "2") && items[i+1] == "0" && IsUUID(items[i+2]) {
			rules[items[i]]++
			i += 2
		}
	}
	got := map[string]int{}
	for _, r := range s.Vendors[0].Rules {
		got[string('0'+rune(r.Mode))]++
	}
	if len(s.Vendors) != 1 || s.RuleCount() != rules["0"]+rules["1"]+rules["2"] || got["0"] != rules["0"] || got["1"] != rules["1"] || got["2"] != rules["2"] {
		t.Errorf("parsed %d vendors, modes %v; the independent count finds %v", len(s.Vendors), got, rules)
	}
	// SSL as exported: its own header says changes are off (the second
	// item), so every rule is locked whatever its mode says.
	if s.ChangesAllowed != (items[1] == "0") || s.ChangesAllowed {
		t.Errorf("changes allowed: %v, the header says %s", s.ChangesAllowed, items[1])
	}
	v := s.Vendors[0]
	t.Logf("SSL 3.1: %d bytes, vendor %q %q %s, %d rules %v, changes allowed %v, %d trailing integers",
		len(data), v.Vendor, v.Name, v.Version, s.RuleCount(), got, s.ChangesAllowed, s.Trailer)
}
