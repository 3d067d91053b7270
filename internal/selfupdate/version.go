package selfupdate

import (
	"fmt"
	"strconv"
	"strings"
)

// version is a semantic version: major.minor.patch and an optional
// pre-release, with or without a leading v; build metadata is ignored.
type version struct {
	core [3]uint64
	pre  []string
}

func parseVersion(s string) (version, error) {
	var v version
	s = strings.TrimPrefix(s, "v")
	s, _, _ = strings.Cut(s, "+")
	core, pre, hasPre := strings.Cut(s, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return v, fmt.Errorf("version %q: want major.minor.patch", s)
	}
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil || (len(p) > 1 && p[0] == '0') {
			return v, fmt.Errorf("version %q: %q is not a number", s, p)
		}
		v.core[i] = n
	}
	if hasPre {
		v.pre = strings.Split(pre, ".")
		for _, id := range v.pre {
			if id == "" {
				return v, fmt.Errorf("version %q: an empty pre-release part", s)
			}
		}
	}
	return v, nil
}

// compareVersions orders two versions as semantic versioning does (a
// pre-release before its release); a version that does not parse sorts
// before every one that does, and unparsable ones compare as strings.
func compareVersions(a, b string) int {
	va, ea := parseVersion(a)
	vb, eb := parseVersion(b)
	switch {
	case ea != nil && eb != nil:
		return strings.Compare(a, b)
	case ea != nil:
		return -1
	case eb != nil:
		return 1
	}
	for i := range va.core {
		if va.core[i] != vb.core[i] {
			if va.core[i] < vb.core[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(va.pre) == 0 && len(vb.pre) == 0:
		return 0
	case len(va.pre) == 0:
		return 1
	case len(vb.pre) == 0:
		return -1
	}
	for i := 0; i < len(va.pre) && i < len(vb.pre); i++ {
		if c := comparePre(va.pre[i], vb.pre[i]); c != 0 {
			return c
		}
	}
	return cmpInt(len(va.pre), len(vb.pre))
}

// comparePre orders pre-release parts: numbers numerically and before
// words, words as strings.
func comparePre(a, b string) int {
	na, ea := strconv.ParseUint(a, 10, 64)
	nb, eb := strconv.ParseUint(b, 10, 64)
	switch {
	case ea == nil && eb == nil:
		if na == nb {
			return 0
		}
		if na < nb {
			return -1
		}
		return 1
	case ea == nil:
		return -1
	case eb == nil:
		return 1
	}
	return strings.Compare(a, b)
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sameVersion: equal as versions (v0.2.0 is 0.2.0), or as strings.
func sameVersion(a, b string) bool {
	return a == b || compareVersions(a, b) == 0 && strings.TrimPrefix(a, "v") == strings.TrimPrefix(b, "v")
}
