package refs

import (
	"bytes"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/contractkit/contractkit/designer/bsl"
)

// finder finds a name in any case without folding the text: it looks for
// the last byte of the name's rarest letter in either case (a fast byte
// search) and compares the name around each candidate rune by rune.
type finder struct {
	name   string
	runes  [][2][]byte // each rune of the name, in lower and upper case
	offs   []int       // the byte offset of each rune in the name
	anchor int         // the rune looked for
	slow   bool        // a letter changes its length with its case: fold instead
}

// rarity orders letters from rare to common in names; others (digits,
// "_") are rarer still.
const rarity = "ъёэщфцюшжхйчыбягьзудпмклвнрситаеоqxzjkvbpygfwmucldrhsnioate"

func newFinder(name string) finder {
	f := finder{name: name}
	best, bestRank := 0, len(rarity)+1
	off := 0
	for _, r := range name {
		lo, up := unicode.ToLower(r), unicode.ToUpper(r)
		l, u := utf8.AppendRune(nil, lo), utf8.AppendRune(nil, up)
		if len(l) != utf8.RuneLen(r) || len(u) != len(l) {
			f.slow = true
		}
		rank := strings.IndexRune(rarity, lo)
		if rank < 0 {
			rank = -1
		}
		if rank < bestRank {
			best, bestRank = len(f.runes), rank
		}
		f.runes = append(f.runes, [2][]byte{l, u})
		f.offs = append(f.offs, off)
		off += utf8.RuneLen(r)
	}
	f.anchor = best
	return f
}

// all returns the offsets of every occurrence, in order, overlapping
// ones included.
func (f *finder) all(data []byte) []int {
	if len(f.runes) == 0 || len(data) < len(f.name) {
		return nil
	}
	if f.slow {
		folded := append([]byte(nil), data...)
		bsl.FoldInPlace(folded)
		name := fold(f.name)
		var out []int
		for at := 0; ; {
			i := bytes.Index(folded[at:], name)
			if i < 0 {
				return out
			}
			out = append(out, at+i)
			at += i + 1
		}
	}
	var out []int
	enc := f.runes[f.anchor]
	for v, e := range enc {
		if v == 1 && bytes.Equal(e, enc[0]) {
			break // a letter without case
		}
		last := e[len(e)-1]
		for at := len(e) - 1; at < len(data); {
			i := bytes.IndexByte(data[at:], last)
			if i < 0 {
				break
			}
			end := at + i + 1 // just after the anchor rune
			at = end
			start := end - len(e) - f.offs[f.anchor]
			if start < 0 || start+len(f.name) > len(data) || !bytes.Equal(data[end-len(e):end], e) {
				continue
			}
			if f.at(data, start) {
				out = append(out, start)
			}
		}
	}
	sort.Ints(out)
	return compact(out)
}

// at reports whether the name starts at data[start:] in any case.
func (f *finder) at(data []byte, start int) bool {
	for k, enc := range f.runes {
		p := start + f.offs[k]
		seg := data[p : p+len(enc[0])]
		if !bytes.Equal(seg, enc[0]) && !bytes.Equal(seg, enc[1]) {
			return false
		}
	}
	return true
}

func compact(s []int) []int {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
