//go:build unix

package rpc

import "syscall"

// offheap returns an empty buffer of capacity n in memory mapped for it
// alone, outside the Go heap: the collector neither scans it nor counts it
// when it sets the next heap goal, so output waiting for a slow client
// costs its size once, not GOGC times over. release gives it back.
func offheap(n int) []byte {
	page := syscall.Getpagesize()
	if n < page {
		return make([]byte, 0, n) // a whole page would be mostly waste
	}
	size := (n + page - 1) / page * page
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, 0, n) // no mapping to be had: the heap will do
	}
	return b[:0]
}

// release unmaps a buffer offheap returned; one from the heap is left to
// the collector.
func release(b []byte) {
	if cap(b) == 0 {
		return
	}
	// syscall.Munmap finds the mapping by its last byte; one it does not
	// know (a heap buffer) is refused and left alone.
	syscall.Munmap(b[:cap(b)])
}
