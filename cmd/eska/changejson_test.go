package main

import (
	"bytes"
	"testing"
)

// A change that does not decode is, under -json, an error in JSON on
// stdout with exit 1, as every other refusal under -json is; as text it is
// a usage error (exit 2) on stderr.
func TestPropertyChangeDecodeErrorJSON(t *testing.T) {
	dir := editableProject(t, 1, false)
	for _, c := range []struct {
		change, want string
	}{
		{`{"kind":"unsignedInteger","value":"18446744073709551616"}`,
			`{"error":{"code":-32602,"message":"Invalid params: /change/value: \"18446744073709551616\" exceeds the unsigned 64-bit range"}}` + "\n"},
		{`5`, `{"error":{"code":-32602,"message":"Invalid params: /change: expected an object, got number 5"}}` + "\n"},
	} {
		for _, cmd := range []string{"preview", "set"} {
			var stdout, stderr bytes.Buffer
			code := runProperty([]string{cmd, "--json", dir, "catalog:К1", "Comment", c.change}, &stdout, &stderr)
			if code != 1 || stdout.String() != c.want || stderr.Len() != 0 {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want exit 1 and %q", cmd, c.change, code, stdout.String(), stderr.String(), c.want)
			}
			stdout.Reset()
			stderr.Reset()
			if code := runProperty([]string{cmd, dir, "catalog:К1", "Comment", c.change}, &stdout, &stderr); code != 2 || stdout.Len() != 0 || stderr.Len() == 0 {
				t.Errorf("%s %s as text: exit %d, stdout %q, stderr %q; want exit 2 and a message on stderr", cmd, c.change, code, stdout.String(), stderr.String())
			}
		}
	}
}
