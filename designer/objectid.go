package designer

import "strings"

// escaper escapes a name for an ObjectId segment. One pass over the
// string is the same as replacing % first, then / and :, so an escape is
// never escaped twice.
var escaper = strings.NewReplacer("%", "%25", "/", "%2F", ":", "%3A")

// ObjectID returns the hierarchical identity of an object named name of
// kind under parent ("" for a top-level object): kind:name segments joined
// with "/". Names are kept as written, Unicode included; uuids play no
// part, since they may repeat.
func ObjectID(parent string, kind Kind, name string) string {
	seg := string(kind) + ":" + escaper.Replace(name)
	if parent == "" {
		return seg
	}
	return parent + "/" + seg
}

// UnescapeName reverses the escaping of one name.
func UnescapeName(s string) string {
	return strings.NewReplacer("%2F", "/", "%3A", ":", "%25", "%").Replace(s)
}
