package rpc

// SendNotification writes a server-to-client notification. The handler
// calls it from the worker (inside Call, Notify or Background), so the
// notification is queued before the response of the request being run:
// the contract wants metadata/changed ahead of that response.
func (s *Server) SendNotification(method string, params []byte) {
	b := make([]byte, 0, len(params)+len(method)+48)
	b = append(b, `{"jsonrpc":`...)
	b = appendJSONString(b, s.cfg.JSONRPCVersion)
	b = append(b, `,"method":`...)
	b = appendJSONString(b, method)
	b = append(b, `,"params":`...)
	b = append(b, params...)
	b = append(b, '}')
	s.send(b)
}

// appendJSONString writes an ASCII name as a JSON string; method names and
// the version are ASCII without quotes or controls.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
