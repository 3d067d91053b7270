//go:build unix && !linux

package atomicfile

import "golang.org/x/sys/unix"

// walkOpen is how walkFolder opens the folders on the way: here for
// reading, so a folder on the way must be readable, not only passable.
const walkOpen = unix.O_RDONLY
