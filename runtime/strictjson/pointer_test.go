package strictjson

import (
	"strings"
	"testing"
)

func TestPointerTokens(t *testing.T) {
	cases := []struct {
		raw, escaped string
	}{
		{"", ""},
		{"plain", "plain"},
		{"a/b", "a~1b"},
		{"m~n", "m~0n"},
		{"~1", "~01"},
		{"/~", "~1~0"},
		{"~/~/", "~0~1~0~1"},
	}
	for _, c := range cases {
		if got := EscapePointerToken(c.raw); got != c.escaped {
			t.Errorf("EscapePointerToken(%q) = %q, want %q", c.raw, got, c.escaped)
		}
		if got, ok := UnescapePointerToken(c.escaped); got != c.raw || !ok {
			t.Errorf("UnescapePointerToken(%q) = %q, %v, want %q, true", c.escaped, got, ok, c.raw)
		}
		if got := AppendPointer("/x", c.raw); got != "/x/"+c.escaped {
			t.Errorf("AppendPointer(/x, %q) = %q, want %q", c.raw, got, "/x/"+c.escaped)
		}
	}
}

// A '~' followed by neither 0 nor 1 is reported and kept as it is; the
// valid escapes around it are still decoded.
func TestUnescapePointerTokenInvalid(t *testing.T) {
	cases := []struct {
		in, out string
	}{
		{"~", "~"},
		{"a~", "a~"},
		{"~2", "~2"},
		{"~1~", "/~"},
		{"~x~0", "~x~"},
		{"~0~1~9", "~/~9"},
	}
	for _, c := range cases {
		if got, ok := UnescapePointerToken(c.in); got != c.out || ok {
			t.Errorf("UnescapePointerToken(%q) = %q, %v, want %q, false", c.in, got, ok, c.out)
		}
	}
}

func FuzzPointerToken(f *testing.F) {
	for _, s := range []string{"", "a/b", "~", "~01", "~~//", "~2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		esc := EscapePointerToken(s)
		if strings.Contains(esc, "/") {
			t.Fatalf("EscapePointerToken(%q) = %q holds a slash", s, esc)
		}
		if got, ok := UnescapePointerToken(esc); got != s || !ok {
			t.Fatalf("round trip of %q: %q, %v", s, got, ok)
		}
		if _, ok := UnescapePointerToken(s); ok {
			for i := 0; i < len(s); i++ {
				if s[i] == '~' && (i+1 == len(s) || (s[i+1] != '0' && s[i+1] != '1')) {
					t.Fatalf("UnescapePointerToken(%q) ok with a bare ~ at %d", s, i)
				}
			}
		}
	})
}

// A message names the whole document "/", any other pointer as it is.
func TestDisplayPointer(t *testing.T) {
	for ptr, want := range map[string]string{"": "/", "/": "/", "/a": "/a", "/a~1b/0": "/a~1b/0"} {
		if got := DisplayPointer(ptr); got != want {
			t.Errorf("DisplayPointer(%q) = %q, want %q", ptr, got, want)
		}
	}
}
