package atomicfile

import "errors"

// Why a file may not be replaced (WriteDenied).
var (
	// ErrNoWriteBit: no one may write the file (it has no write bit):
	// someone means to keep it, and it is kept even from root.
	ErrNoWriteBit = errors.New("no one may write it")
	// ErrNotWritable: the system would not let this process write it.
	ErrNotWritable = errors.New("this user may not write it")
	// ErrStickyOwner: it belongs to another user in a sticky folder (as
	// /tmp), where only its owner or the folder's may replace it.
	ErrStickyOwner = errors.New("it belongs to another user in a sticky folder")
)

// DeniedError is a file this process may not replace: Reason is one of
// ErrNoWriteBit, ErrNotWritable and ErrStickyOwner, Err the system's
// answer when there is one.
type DeniedError struct {
	Path   string
	Reason error
	Err    error
}

func (e *DeniedError) Error() string {
	if e.Err != nil {
		return e.Path + ": " + e.Reason.Error() + " (" + e.Err.Error() + ")"
	}
	return e.Path + ": " + e.Reason.Error()
}

func (e *DeniedError) Unwrap() error { return e.Reason }
