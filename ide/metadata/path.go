package metadata

// Paths: the contract's Path spelling of native paths, and paths relative
// to a project's sources.

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// ToPath spells a native path as the contract's Path: UTF-8 as is,
// otherwise every byte as %HH.
func ToPath(p string) gen.Path {
	if utf8.ValidString(p) {
		return gen.Path{Value: p, Encoding: gen.PathEncodingUTF8}
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		fmt.Fprintf(&b, "%%%02X", p[i])
	}
	return gen.Path{Value: b.String(), Encoding: gen.PathEncodingPercent}
}

// FromPath decodes a Path; the UTF-16 spelling belongs to Windows and is
// refused here.
func FromPath(p gen.Path) (string, error) {
	switch p.Encoding {
	case gen.PathEncodingUTF8:
		return p.Value, nil
	case gen.PathEncodingPercent:
		var out []byte
		s := p.Value
		for i := 0; i < len(s); i++ {
			if s[i] != '%' || i+2 >= len(s) {
				return "", fmt.Errorf("percent path: byte %d is not %%HH", i)
			}
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", fmt.Errorf("percent path: byte %d is not %%HH", i)
			}
			out = append(out, byte(v))
			i += 2
		}
		return string(out), nil
	}
	return "", fmt.Errorf("path encoding %s is not this system's", p.Encoding)
}

// rel returns a path relative to the sources.
func (p *project) rel(path string) (string, bool) {
	r, err := filepath.Rel(p.srcDir, path)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return r, true
}
