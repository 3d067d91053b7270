//go:build !aicontrol_disabled

package bridge

import (
	"encoding/json"

	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Responses are written by hand around the generated result encoders, so
// that the id goes back byte for byte as the client wrote it.

func appendHead(out, id []byte) []byte {
	out = append(out, `{"jsonrpc":`...)
	out = strictjson.AppendString(out, aicontrol.JSONRPCVersion)
	out = append(out, `,"id":`...)
	if id == nil {
		return append(out, "null"...)
	}
	return append(out, id...)
}

func appendError(out []byte, e *rpcError) []byte {
	start := len(out)
	out = appendHead(out, e.id)
	eo := aicontrol.ErrorObject{Code: e.code, Message: e.message()}
	if e.detail != nil {
		// A detail of strings always encodes.
		eo.Data, _ = e.detail.MarshalJSON()
	}
	obj, _ := eo.MarshalJSON()
	out = append(out, `,"error":`...)
	out = append(out, obj...)
	out = append(out, '}')
	if len(out)-start > maxLine {
		// Only a huge id, or a huge method name quoted in the detail, can
		// make an error line too long: drop the detail, then the id.
		switch {
		case e.detail != nil:
			e.detail = nil
		case e.id != nil:
			e.id = nil
		default:
			return append(out, '\n')
		}
		return appendError(out[:start], e)
	}
	return append(out, '\n')
}

func appendResult(out, id []byte, result json.Marshaler) []byte {
	start := len(out)
	body, err := result.MarshalJSON()
	if err != nil {
		return appendError(out, newError(aicontrol.CodeInvalidRequest, "result could not be encoded", id))
	}
	out = appendHead(out, id)
	out = append(out, `,"result":`...)
	out = append(out, body...)
	out = append(out, '}')
	if len(out)-start > maxLine {
		return appendError(out[:start], newError(aicontrol.CodeInvalidRequest, "response would exceed the line limit", id))
	}
	return append(out, '\n')
}
