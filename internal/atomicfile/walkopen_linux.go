package atomicfile

import "golang.org/x/sys/unix"

// walkOpen is how walkFolder opens the folders on the way: O_PATH needs
// only the right to pass through a folder (x), as a lookup by name does,
// not to read it, so a folder such as a 0711 home is passed as before.
const walkOpen = unix.O_PATH
