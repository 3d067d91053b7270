package rpc

import (
	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// The element scanner below walks the top level of a JSON array that
// strictjson.Valid has accepted, so it only needs to know where values
// end: strings (with their escapes) and nesting.

// isArray reports whether a body's first non-blank byte opens an array.
func isArray(body []byte) bool {
	i := skipBlank(body, 0)
	return i < len(body) && body[i] == '['
}

func skipBlank(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// eachElem calls fn with the text of each element of the valid JSON array
// body, in order, until fn returns false.
func eachElem(body []byte, fn func(elem []byte) bool) {
	i := skipBlank(body, 0) + 1 // past '['
	for {
		i = skipBlank(body, i)
		if i >= len(body) || body[i] == ']' {
			return
		}
		end := valueEnd(body, i)
		if !fn(body[i:end]) {
			return
		}
		i = skipBlank(body, end)
		if i < len(body) && body[i] == ',' {
			i++
		}
	}
}

// countElems counts the elements of the valid JSON array body.
func countElems(body []byte) int {
	n := 0
	eachElem(body, func([]byte) bool { n++; return true })
	return n
}

// valueEnd returns the end of the valid JSON value that starts at i.
func valueEnd(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = stringEnd(b, i)
			if depth == 0 {
				return i
			}
			i--
		case '[', '{':
			depth++
		case ']', '}':
			if depth == 0 {
				return i // the end of the enclosing array, after a scalar
			}
			if depth--; depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

// stringEnd returns the index after the closing quote of the string that
// opens at i.
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// oversizeBatch answers a batch over the item limit. Nothing of it runs:
// requests get resource_limit, invalid elements their error, and
// notifications nothing. The elements are read one at a time and the
// answer is written as they are, so memory stays near the answer's size
// however many elements there are; the answer keeps to the outgoing limit
// like any batch reply. It returns nil when nothing is to be answered;
// the pieces it returns are for the writer to adopt, their chunks being
// allocated outside the heap like the writer's own.
func (s *Server) oversizeBatch(body []byte) [][]byte {
	var b builder
	b.reset(nil)
	b.alloc = offheap
	b.add([]byte{'['})
	budget := s.cfg.Limits.MaxResponseBytes - s.cfg.Limits.BatchReserveBytes
	limit := s.cfg.Errors.ResourceLimit(string(gen.LimitedResourceBatch), s.cfg.Limits.MaxBatchItems)
	var scratch []byte
	n := 0
	eachElem(body, func(elem []byte) bool {
		var resp response
		var id []byte
		if elem[0] != '{' {
			resp.err = s.cfg.Codes.invalidRequest("a message is an object")
		} else {
			v, err := strictjson.Parse(elem, strictjson.Options{MaxDepth: s.cfg.Limits.MaxDepth})
			if err != nil {
				resp.err = s.jsonError(err)
			} else {
				it := s.checkEnvelope(v, elem)
				switch {
				case it.failure != nil:
					resp.err, id = it.failure, it.echo
				case it.msg.id != nil:
					resp.err, id = limit, it.msg.id
				default:
					return true // a notification: dropped
				}
			}
		}
		scratch = appendError(scratch[:0], s.cfg.JSONRPCVersion, id, resp.err)
		if b.size()+len(scratch)+2 > budget {
			scratch = appendError(scratch[:0], s.cfg.JSONRPCVersion, id, s.cfg.Errors.ResponseTooLarge(s.cfg.Limits.MaxResponseBytes))
		}
		b.next()
		if n > 0 {
			b.add([]byte{','})
		}
		b.add(scratch)
		n++
		return true
	})
	if n == 0 {
		return nil
	}
	b.add([]byte{']'})
	return b.finish()
}
