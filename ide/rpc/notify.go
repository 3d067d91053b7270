package rpc

// SendNotification writes a server-to-client notification. The handler
// calls it from the worker (inside Call, Notify or Background), so the
// notification is queued before the response of the request being run:
// the contract wants metadata/changed ahead of that response.
func (s *Server) SendNotification(method string, params []byte) {
	var b builder
	b.reset(make([]byte, 0, headRoom+len(params)+len(method)+48))
	b.buf = append(b.buf, `{"jsonrpc":`...)
	b.buf = appendJSONString(b.buf, s.cfg.JSONRPCVersion)
	b.buf = append(b.buf, `,"method":`...)
	b.buf = appendJSONString(b.buf, method)
	b.buf = append(b.buf, `,"params":`...)
	b.buf = append(b.buf, params...)
	b.buf = append(b.buf, '}')
	s.w.send(b.finish()...)
}

// appendJSONString writes an ASCII name as a JSON string; method names and
// the version are ASCII without quotes or controls.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
