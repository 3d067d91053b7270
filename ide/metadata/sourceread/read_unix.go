//go:build unix

package sourceread

import (
	"errors"
	"syscall"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// readPlain reads real, the resolved path of path, when it is not a link:
// one open that does not follow a link and does not wait on a FIFO, one
// stat, then the reads, without the runtime's poller. It reports done
// false for a link, which the caller resolves the long way.
func (r *Reader) readPlain(path, real string, buf []byte) (data []byte, done bool, err error) {
	fd, err := syscall.Open(real, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return nil, false, nil
	case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ENOTDIR):
		return nil, true, &Error{Path: path, Reason: gen.SourceErrorReasonMissing, Err: err}
	case err != nil:
		return nil, true, &Error{Path: path, Reason: gen.SourceErrorReasonIo, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, true, &Error{Path: path, Reason: gen.SourceErrorReasonIo, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, true, &Error{Path: path, Reason: gen.SourceErrorReasonNotFile, Err: errors.New("not a regular file")}
	}
	if st.Size > int64(r.Limit.MaxBytes) {
		return nil, true, r.tooLarge(path, st.Size)
	}
	// The size fstat gave. A file rewritten meanwhile reads short or cut
	// off; the client's file event for that write makes the owner read
	// again.
	data = sized(buf, int(st.Size))
	n := 0
	for n < len(data) {
		m, err := syscall.Read(fd, data[n:])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, true, &Error{Path: path, Reason: gen.SourceErrorReasonIo, Err: err}
		}
		if m == 0 {
			break
		}
		n += m
	}
	return data[:n], true, nil
}
