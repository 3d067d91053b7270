//go:build !unix

package atomicfile

import "io/fs"

// trustLink refuses every link on the way: who owns a link, and who may
// change its folder, is not judged on this system, so none is trusted.
func trustLink(link string, _ fs.FileInfo) error {
	return &UntrustedLinkError{Path: link, Why: "who may change a link is not judged on this system, so no link on the way is followed"}
}
