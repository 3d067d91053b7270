package spec

import "testing"

// A byte count renders in the largest binary unit that divides it, and
// as the exact count with the word in its plural form otherwise.
func TestFormatIEC(t *testing.T) {
	for _, c := range []struct {
		n      string
		en, ru string
	}{
		{"1048576", "1 MiB", "1 МиБ"},
		{"4096", "4 KiB", "4 КиБ"},
		{"1073741824", "1 GiB", "1 ГиБ"},
		{"1048577", "1048577 bytes", "1048577 байт"},
		{"1047552", "1023 KiB", "1023 КиБ"},
		{"1", "1 byte", "1 байт"},
		{"2", "2 bytes", "2 байта"},
		{"12", "12 bytes", "12 байт"},
		{"22", "22 bytes", "22 байта"},
		{"111", "111 bytes", "111 байт"},
		{"0", "0 bytes", "0 байт"},
	} {
		v := placeholderValue{raw: c.n, bytes: true}
		for lang, want := range map[string]string{"en": c.en, "ru": c.ru} {
			if got, err := v.format(FormatIEC, lang); err != nil || got != want {
				t.Errorf("%s in %s: %q %v, want %q", c.n, lang, got, err, want)
			}
		}
	}
	if _, err := (placeholderValue{raw: "5"}).format(FormatIEC, "en"); err == nil {
		t.Error("a constant not counted in bytes took the byte format")
	}
}
