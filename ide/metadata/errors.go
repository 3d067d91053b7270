package metadata

// The contract's errors as the backend answers them: domain errors with
// their kind, details and context, and the errors of reading a source.

import (
	"encoding/json"
	"errors"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata/sourceread"
)

// reasonChanged marks a file that no longer says what the tree read from
// it: it changed without a file event. The contract calls that
// source_changed, and the client refreshes.
const reasonChanged = "changed"

// derr builds the contract's domain error.
func derr(kind gen.DomainErrorKind, details json.Marshaler, p *project, s *session) *gen.RPCError {
	raw := json.RawMessage(`{}`)
	if details != nil {
		if b, err := details.MarshalJSON(); err == nil {
			raw = b
		}
	}
	data := gen.DomainErrorData{Kind: kind, Details: raw}
	if s != nil {
		sid := gen.SessionID(s.id)
		data.SessionID = &sid
	}
	if p != nil {
		pid, g := gen.ProjectID(p.id), gen.Generation(p.generation)
		data.ProjectID, data.Generation = &pid, &g
	}
	return gen.NewError(gen.CodeRequestFailed, data)
}

// DomainError builds the contract's domain error (code -32000) with its
// kind and details; the IDE server's own errors are built here too.
func DomainError(kind gen.DomainErrorKind, details json.Marshaler) *gen.RPCError {
	return derr(kind, details, nil, nil)
}

// UnknownSession is the answer for a session this process does not have;
// the error data names it.
func UnknownSession(id gen.SessionID) *gen.RPCError {
	e := derr(gen.DomainErrorKindUnknownSession, gen.UnknownSessionDetails{SessionID: string(id)}, nil, nil)
	data := e.Data.(gen.DomainErrorData)
	data.SessionID = &id
	e.Data = data
	return e
}

// loadError maps a failure to read a file to the contract's error.
func (b *Backend) loadError(p *project, o *object, err error) error {
	var se *sourceread.Error
	if !errors.As(err, &se) {
		return gen.NewError(gen.CodeInternalError, nil)
	}
	if se.Reason == reasonChanged {
		rel, _ := p.rel(se.Path)
		return derr(gen.DomainErrorKindSourceChanged, gen.SourceChangedDetails{Path: ToPath(rel)}, p, b.s)
	}
	kind := gen.DomainErrorKindSourceInvalid
	switch {
	case se.XML || se.Reason == gen.SourceErrorReasonUnsupported:
		kind = gen.DomainErrorKindXMLInvalid
	case se.Reason == gen.SourceErrorReasonMissing:
		kind = gen.DomainErrorKindSourceMissing
	}
	d := gen.SourceErrorDetails{Reason: se.Reason}
	if rel, ok := p.rel(se.Path); ok {
		pp := ToPath(rel)
		d.Path = &pp
	}
	if o != nil {
		oid := gen.ObjectID(o.id)
		d.ObjectID = &oid
	}
	return derr(kind, d, p, b.s)
}
