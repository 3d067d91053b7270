package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Texts name the constants they state instead of spelling their values:
// "at most {{MaxLineBytes}} bytes" or "at most {{MaxLineBytes:iec}}". The
// pages and generated comments show the value, so that changing a limit in
// the spec changes every sentence that states it, in both languages. A
// placeholder names a constant by its symbol, or an error code by the name
// of its generated constant (CodeInvalidRequest).

var placeholder = regexp.MustCompile(`\{\{([A-Za-z][A-Za-z0-9]*)(?::([a-z]+))?\}\}`)

// Placeholder formats.
const (
	// FormatIEC writes a byte count in binary units (4 KiB, 1 MiB); the
	// value must be an exact multiple of the unit.
	FormatIEC = "iec"
)

// placeholderValue is the number or text a placeholder stands for.
type placeholderValue struct {
	raw   string // the value as JSON
	bytes bool   // a constant whose unit is bytes
}

// placeholders maps every name a text may use to its value.
func (d *Domain) placeholders() map[string]placeholderValue {
	d.placeholderOnce.Do(func() {
		m := map[string]placeholderValue{}
		for _, c := range d.Constants {
			m[c.Symbol] = placeholderValue{raw: string(bytes.TrimSpace(c.Value)), bytes: c.Unit == "bytes"}
		}
		for _, e := range d.Errors {
			m[CodePrefix+e.GoName()] = placeholderValue{raw: strconv.FormatInt(e.Code, 10)}
		}
		d.placeholderMap = m
	})
	return d.placeholderMap
}

// Expand returns s with every placeholder replaced by its value in lang
// ("en" or "ru"). A placeholder that names nothing is left as it is; the
// checks of the spec report it.
func (d *Domain) Expand(s, lang string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	m := d.placeholders()
	return placeholder.ReplaceAllStringFunc(s, func(p string) string {
		sub := placeholder.FindStringSubmatch(p)
		v, ok := m[sub[1]]
		if !ok {
			return p
		}
		out, err := v.format(sub[2], lang)
		if err != nil {
			return p
		}
		return out
	})
}

// ExpandText is Expand in both languages.
func (d *Domain) ExpandText(t Text) Text {
	return Text{EN: d.Expand(t.EN, "en"), RU: d.Expand(t.RU, "ru")}
}

// Text returns t in lang with its placeholders expanded.
func (d *Domain) Text(t Text, lang string) string { return d.Expand(t.Get(lang), lang) }

var iecUnits = []struct {
	shift  uint
	en, ru string
}{{30, "GiB", "ГиБ"}, {20, "MiB", "МиБ"}, {10, "KiB", "КиБ"}}

func (v placeholderValue) format(format, lang string) (string, error) {
	var s string
	if strings.HasPrefix(v.raw, `"`) {
		if err := jsonUnmarshalString(v.raw, &s); err != nil {
			return "", err
		}
	} else {
		s = v.raw
	}
	switch format {
	case "":
		return s, nil
	case FormatIEC:
		if !v.bytes {
			return "", fmt.Errorf("format %s applies to constants counted in bytes", FormatIEC)
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return "", err
		}
		for _, u := range iecUnits {
			if n > 0 && n%(1<<u.shift) == 0 {
				unit := u.en
				if lang == "ru" {
					unit = u.ru
				}
				return strconv.FormatInt(n>>u.shift, 10) + " " + unit, nil
			}
		}
		// Not a whole number of any unit: the exact count, so that a limit
		// of, say, a mebibyte and one byte still reads right.
		return strconv.FormatInt(n, 10) + " " + bytesWord(n, lang), nil
	}
	return "", fmt.Errorf("unknown format %q (known: %s)", format, FormatIEC)
}

// checkPlaceholders reports placeholders of a text that name nothing or
// cannot be formatted, and a translation that names other constants than
// the English text.
func (c *checker) checkPlaceholders(en, ru, ptr string) {
	if !strings.Contains(en, "{{") && !strings.Contains(ru, "{{") {
		return
	}
	m := c.d.placeholders()
	names := func(s, lang string) []string {
		var out []string
		for _, sub := range placeholder.FindAllStringSubmatch(s, -1) {
			v, ok := m[sub[1]]
			if !ok {
				c.errorf(ptr+"/"+lang, "placeholder {{%s}} names no constant or error code of the domain", sub[1])
				continue
			}
			if _, err := v.format(sub[2], lang); err != nil {
				c.errorf(ptr+"/"+lang, "placeholder %s: %v", sub[0], err)
			}
			out = append(out, sub[1])
		}
		sort.Strings(out)
		return out
	}
	a, b := names(en, "en"), names(ru, "ru")
	if strings.Join(a, ",") != strings.Join(b, ",") {
		c.errorf(ptr+"/ru", "the Russian text names %v, the English one %v: both must state the same constants", b, a)
	}
}

func jsonUnmarshalString(raw string, s *string) error { return json.Unmarshal([]byte(raw), s) }

// bytesWord is the word for n bytes in lang, with Russian's plural forms
// (1 байт, 2 байта, 5 байт, 21 байт).
func bytesWord(n int64, lang string) string {
	if lang != "ru" {
		if n == 1 {
			return "byte"
		}
		return "bytes"
	}
	if n < 0 {
		n = -n
	}
	if d, h := n%10, n%100; d >= 2 && d <= 4 && (h < 12 || h > 14) {
		return "байта"
	}
	return "байт"
}
