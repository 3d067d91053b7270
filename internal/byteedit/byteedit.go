// Package byteedit changes bytes by exact replacements of ranges, and
// turns a set of replacements around: the replacements that give the old
// bytes back from the new ones. Designer XML edits, rename plans and the
// write journal all speak in these replacements.
package byteedit

import (
	"fmt"
	"io"
	"sort"
)

// Edit replaces the bytes [Start, End) of a file with Text.
type Edit struct {
	Start, End int64
	Text       string
}

// sorted returns the edits by start, checked to lie inside n bytes and
// not to overlap.
func sorted(n int, edits []Edit) ([]Edit, error) {
	out := append([]Edit(nil), edits...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	var prev int64
	for i, e := range out {
		if e.Start < 0 || e.End < e.Start || e.End > int64(n) {
			return nil, fmt.Errorf("edit %d: range %d-%d is outside the %d bytes of the file", i, e.Start, e.End, n)
		}
		if e.Start < prev {
			return nil, fmt.Errorf("edit %d: range %d-%d overlaps the one before, which ends at %d", i, e.Start, e.End, prev)
		}
		prev = e.End
	}
	return out, nil
}

// Apply returns data with the edits made. The edits must lie inside data
// and must not overlap; they may come in any order. data is not changed.
func Apply(data []byte, edits []Edit) ([]byte, error) {
	s, err := sorted(len(data), edits)
	if err != nil {
		return nil, err
	}
	size := len(data)
	for _, e := range s {
		size += len(e.Text) - int(e.End-e.Start)
	}
	out := make([]byte, 0, size)
	var at int64
	for _, e := range s {
		out = append(out, data[at:e.Start]...)
		out = append(out, e.Text...)
		at = e.End
	}
	return append(out, data[at:]...), nil
}

// WriteApplied writes Apply(data, edits) to w piece by piece, without
// making the new bytes: a digest of them costs no copy.
func WriteApplied(w io.Writer, data []byte, edits []Edit) error {
	s, err := sorted(len(data), edits)
	if err != nil {
		return err
	}
	var at int64
	for _, e := range s {
		if _, err := w.Write(data[at:e.Start]); err != nil {
			return err
		}
		if _, err := io.WriteString(w, e.Text); err != nil {
			return err
		}
		at = e.End
	}
	_, err = w.Write(data[at:])
	return err
}

// Inverse returns the edits that turn Apply(data, edits) back into data:
// each replaced range, where it lies in the new bytes, gets the old bytes.
func Inverse(data []byte, edits []Edit) ([]Edit, error) {
	s, err := sorted(len(data), edits)
	if err != nil {
		return nil, err
	}
	out := make([]Edit, 0, len(s))
	var shift int64
	for _, e := range s {
		start := e.Start + shift
		out = append(out, Edit{Start: start, End: start + int64(len(e.Text)), Text: string(data[e.Start:e.End])})
		shift += int64(len(e.Text)) - (e.End - e.Start)
	}
	return out, nil
}
