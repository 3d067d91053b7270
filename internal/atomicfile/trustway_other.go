//go:build !unix

package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// trustLink refuses every link on the way: who owns a link, and who may
// change its folder, is not judged on this system, so none is trusted.
func trustLink(link string, _ fs.FileInfo) error {
	return &UntrustedLinkError{Path: link, Why: "who may change a link is not judged on this system, so no link on the way is followed"}
}

// walkFolder looks at the way to the folder path (TrustedFolderWay) and
// opens it by its name: no link on the way is followed here, though one
// put there between the look and the open is not seen.
func walkFolder(path string) (*os.File, error) {
	if _, err := TrustedFolderWay(path); err != nil {
		return nil, err
	}
	return os.Open(filepath.Clean(path))
}
