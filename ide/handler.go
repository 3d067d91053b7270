package ide

import (
	"context"
	"encoding/json"
	"path/filepath"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// handler is the server's implementation of the generated Handler. The
// transport itself answers exit and $/cancelRequest; the methods of the
// metadata backend answer unknown_session, since no session can be open
// until that backend exists.
type handler struct{ s *Server }

// Initialize negotiates the version: the major must match and the
// client's minor may not exceed the supported one. The capabilities are
// those of the negotiated minor; editing ones also need the opt-in.
func (h handler) Initialize(ctx context.Context, p gen.InitializeParams) (gen.InitializeResult, error) {
	s := h.s
	if p.APIVersion.Major != gen.APIMajor || p.APIVersion.Minor < 0 || p.APIVersion.Minor > gen.SupportedAPIMinor {
		return gen.InitializeResult{}, domainError(gen.DomainErrorKindUnsupportedVersion, gen.UnsupportedVersionDetails{
			Requested: p.APIVersion,
			Supported: gen.APIVersion{Major: gen.APIMajor, Minor: gen.SupportedAPIMinor},
		})
	}
	v := p.APIVersion
	s.negotiated = &v
	s.edits = p.AllowPropertyEdits != nil && *p.AllowPropertyEdits
	caps := s.capabilities()
	s.caps = map[string]bool{}
	if raw, err := caps.MarshalJSON(); err == nil {
		var m map[string]any
		if json.Unmarshal(raw, &m) == nil {
			for k, v := range m {
				b, _ := v.(bool)
				s.caps[k] = b
			}
		}
	}
	return gen.InitializeResult{
		APIVersion:   v,
		Server:       gen.ServerInfo{Name: gen.ServerName, Version: s.version},
		Capabilities: caps,
		Limits: gen.Limits{
			MaxHeaderBytes: gen.MaxHeaderBytes, MaxRequestBytes: gen.MaxRequestBytes, MaxResponseBytes: gen.MaxResponseBytes,
			MaxDepth: gen.MaxDepth, MaxBatchItems: gen.MaxBatchItems, MaxPendingRequests: gen.MaxPendingRequests,
			MaxQueuedBytes: gen.MaxQueuedBytes,
		},
	}, nil
}

// Shutdown ends the session, if any; the transport then accepts only exit.
func (h handler) Shutdown(ctx context.Context, p gen.EmptyParams) error { return nil }

// WorkspaceOpen requires an eska.toml at start; with one present, this
// build has no Designer XML reader to open the sources with.
func (h handler) WorkspaceOpen(ctx context.Context, p gen.OpenParams) (gen.SessionInfo, error) {
	start := p.Start.Value
	reason, ok := manifestState(filepath.Clean(start))
	if ok {
		h.s.diag("designer-backend-unavailable")
		reason = gen.OpenFailureReasonSourceInvalid
	}
	path := p.Start
	return gen.SessionInfo{}, domainError(gen.DomainErrorKindProjectOpenFailed, gen.ProjectOpenFailedDetails{Reason: reason, Path: &path})
}

// CancelRequest and Exit are answered by the transport before dispatch.
func (h handler) CancelRequest(ctx context.Context, p gen.CancelParams) error { return nil }

// Exit is handled by the transport, which owns the process's exit code.
func (h handler) Exit(ctx context.Context) error { return nil }

// WorkspaceDidChangeFiles refers to a session that cannot exist yet.
func (h handler) WorkspaceDidChangeFiles(ctx context.Context, p gen.DidChangeFilesParams) error {
	return unknownSession(string(p.SessionID))
}

// WorkspaceClose closes a session; none can be open.
func (h handler) WorkspaceClose(ctx context.Context, p gen.SessionParams) error {
	return unknownSession(string(p.SessionID))
}

// MetadataChildren needs an open session.
func (h handler) MetadataChildren(ctx context.Context, p gen.ChildrenParams) (gen.ChildrenResult, error) {
	return gen.ChildrenResult{}, unknownSession(string(p.SessionID))
}

// MetadataGet needs an open session.
func (h handler) MetadataGet(ctx context.Context, p gen.ObjectParams) (gen.GetResult, error) {
	return gen.GetResult{}, unknownSession(string(p.SessionID))
}

// MetadataIndex needs an open session.
func (h handler) MetadataIndex(ctx context.Context, p gen.IndexParams) (gen.IndexResult, error) {
	return gen.IndexResult{}, unknownSession(string(p.SessionID))
}

// MetadataIndexErrors needs an open session.
func (h handler) MetadataIndexErrors(ctx context.Context, p gen.IndexErrorsParams) (gen.IndexErrorsResult, error) {
	return gen.IndexErrorsResult{}, unknownSession(string(p.SessionID))
}

// MetadataPreviewProperty needs an open session.
func (h handler) MetadataPreviewProperty(ctx context.Context, p gen.PropertyEditParams) (gen.PreviewResult, error) {
	return gen.PreviewResult{}, unknownSession(string(p.SessionID))
}

// MetadataProperties needs an open session.
func (h handler) MetadataProperties(ctx context.Context, p gen.ObjectParams) (gen.PropertiesResult, error) {
	return gen.PropertiesResult{}, unknownSession(string(p.SessionID))
}

// MetadataPropertyEditing needs an open session.
func (h handler) MetadataPropertyEditing(ctx context.Context, p gen.ObjectParams) (gen.EditingResult, error) {
	return gen.EditingResult{}, unknownSession(string(p.SessionID))
}

// MetadataPropertyReferenceChoices needs an open session.
func (h handler) MetadataPropertyReferenceChoices(ctx context.Context, p gen.PropertyPathParams) (gen.ReferenceChoicesResult, error) {
	return gen.ReferenceChoicesResult{}, unknownSession(string(p.SessionID))
}

// MetadataPropertyTypeChoices needs an open session.
func (h handler) MetadataPropertyTypeChoices(ctx context.Context, p gen.PropertyPathParams) (gen.TypeChoicesResult, error) {
	return gen.TypeChoicesResult{}, unknownSession(string(p.SessionID))
}

// MetadataPropertyValueChoices needs an open session.
func (h handler) MetadataPropertyValueChoices(ctx context.Context, p gen.ValueChoicesParams) (gen.ValueChoicesResult, error) {
	return gen.ValueChoicesResult{}, unknownSession(string(p.SessionID))
}

// MetadataRefresh needs an open session.
func (h handler) MetadataRefresh(ctx context.Context, p gen.RefreshParams) (gen.RefreshResult, error) {
	return gen.RefreshResult{}, unknownSession(string(p.SessionID))
}

// MetadataRenameApply needs an open session.
func (h handler) MetadataRenameApply(ctx context.Context, p gen.RenameApplyParams) (gen.RenameApplyResult, error) {
	return gen.RenameApplyResult{}, unknownSession(string(p.SessionID))
}

// MetadataRenamePreview needs an open session.
func (h handler) MetadataRenamePreview(ctx context.Context, p gen.RenamePreviewParams) (gen.RenamePreviewResult, error) {
	return gen.RenamePreviewResult{}, unknownSession(string(p.SessionID))
}

// MetadataReveal needs an open session.
func (h handler) MetadataReveal(ctx context.Context, p gen.ObjectParams) (gen.RevealResult, error) {
	return gen.RevealResult{}, unknownSession(string(p.SessionID))
}

// MetadataRoot needs an open session.
func (h handler) MetadataRoot(ctx context.Context, p gen.ProjectContext) (gen.RootResult, error) {
	return gen.RootResult{}, unknownSession(string(p.SessionID))
}

// MetadataSearch needs an open session.
func (h handler) MetadataSearch(ctx context.Context, p gen.SearchParams) (gen.SearchResult, error) {
	return gen.SearchResult{}, unknownSession(string(p.SessionID))
}

// MetadataSource needs an open session.
func (h handler) MetadataSource(ctx context.Context, p gen.NodeParams) (gen.SourceResult, error) {
	return gen.SourceResult{}, unknownSession(string(p.SessionID))
}

// MetadataSupport needs an open session.
func (h handler) MetadataSupport(ctx context.Context, p gen.SupportParams) (gen.SupportResult, error) {
	return gen.SupportResult{}, unknownSession(string(p.SessionID))
}

// MetadataSupportFiles needs an open session.
func (h handler) MetadataSupportFiles(ctx context.Context, p gen.SupportFilesParams) (gen.SupportFilesResult, error) {
	return gen.SupportFilesResult{}, unknownSession(string(p.SessionID))
}

// MetadataUndoProperty needs an open session.
func (h handler) MetadataUndoProperty(ctx context.Context, p gen.UndoPropertyParams) (gen.PropertyWriteResult, error) {
	return gen.PropertyWriteResult{}, unknownSession(string(p.SessionID))
}

// MetadataUpdateProperty needs an open session.
func (h handler) MetadataUpdateProperty(ctx context.Context, p gen.PropertyEditParams) (gen.PropertyWriteResult, error) {
	return gen.PropertyWriteResult{}, unknownSession(string(p.SessionID))
}

// ProjectInfo needs an open session.
func (h handler) ProjectInfo(ctx context.Context, p gen.SessionParams) (gen.SessionInfo, error) {
	return gen.SessionInfo{}, unknownSession(string(p.SessionID))
}

// unknownSession is the answer to every request that names a session.
func unknownSession(id string) error {
	sid := gen.SessionID(id)
	err := domainError(gen.DomainErrorKindUnknownSession, gen.UnknownSessionDetails{SessionID: id})
	data := err.Data.(gen.DomainErrorData)
	data.SessionID = &sid
	err.Data = data
	return err
}
