package ide

import (
	"context"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata"
)

// handler is the server's implementation of the generated Handler. The
// transport itself answers exit and $/cancelRequest; the metadata methods
// go to the Designer XML backend.
type handler struct{ s *Server }

// Initialize negotiates the version: the major must match and the
// client's minor may not exceed the supported one. The capabilities are
// those of the negotiated minor; editing ones also need the opt-in.
func (h handler) Initialize(ctx context.Context, p gen.InitializeParams) (gen.InitializeResult, error) {
	s := h.s
	if p.APIVersion.Major != gen.APIMajor || p.APIVersion.Minor < 0 || p.APIVersion.Minor > gen.SupportedAPIMinor {
		return gen.InitializeResult{}, metadata.DomainError(gen.DomainErrorKindUnsupportedVersion, gen.UnsupportedVersionDetails{
			Requested: p.APIVersion,
			Supported: gen.APIVersion{Major: gen.APIMajor, Minor: gen.SupportedAPIMinor},
		})
	}
	v := p.APIVersion
	s.negotiated, s.versions = &v, nil
	s.grants = grantsFor(v, p)
	caps := capabilities(s.grants)
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
func (h handler) Shutdown(ctx context.Context, p gen.EmptyParams) error {
	h.s.backend.Shutdown()
	return nil
}

// WorkspaceOpen opens the projects the manifest at start selects.
func (h handler) WorkspaceOpen(ctx context.Context, p gen.OpenParams) (gen.SessionInfo, error) {
	return h.s.backend.Open(p, h.s.grants)
}

// CancelRequest and Exit are answered by the transport before dispatch.
func (h handler) CancelRequest(ctx context.Context, p gen.CancelParams) error { return nil }

// Exit is handled by the transport, which owns the process's exit code.
func (h handler) Exit(ctx context.Context) error { return nil }

// WorkspaceDidChangeFiles applies the client's file events.
func (h handler) WorkspaceDidChangeFiles(ctx context.Context, p gen.DidChangeFilesParams) error {
	return h.s.backend.DidChangeFiles(p)
}

// WorkspaceClose closes the session.
func (h handler) WorkspaceClose(ctx context.Context, p gen.SessionParams) error {
	return h.s.backend.Close(p)
}

// ProjectInfo reports the session's projects with fresh generations.
func (h handler) ProjectInfo(ctx context.Context, p gen.SessionParams) (gen.SessionInfo, error) {
	return h.s.backend.Info(p)
}

func (h handler) MetadataRoot(ctx context.Context, p gen.ProjectContext) (gen.RootResult, error) {
	return h.s.backend.Root(p)
}

func (h handler) MetadataChildren(ctx context.Context, p gen.ChildrenParams) (gen.ChildrenResult, error) {
	return h.s.backend.Children(p)
}

func (h handler) MetadataGet(ctx context.Context, p gen.ObjectParams) (gen.GetResult, error) {
	return h.s.backend.Get(p)
}

func (h handler) MetadataProperties(ctx context.Context, p gen.ObjectParams) (gen.PropertiesResult, error) {
	return h.s.backend.Properties(p)
}

func (h handler) MetadataSource(ctx context.Context, p gen.NodeParams) (gen.SourceResult, error) {
	return h.s.backend.Source(p)
}

func (h handler) MetadataSearch(ctx context.Context, p gen.SearchParams) (gen.SearchResult, error) {
	return h.s.backend.Search(p)
}

func (h handler) MetadataReveal(ctx context.Context, p gen.ObjectParams) (gen.RevealResult, error) {
	return h.s.backend.Reveal(p)
}

func (h handler) MetadataRefresh(ctx context.Context, p gen.RefreshParams) (gen.RefreshResult, error) {
	return h.s.backend.Refresh(p)
}

func (h handler) MetadataIndex(ctx context.Context, p gen.IndexParams) (gen.IndexResult, error) {
	return h.s.backend.Index(p)
}

func (h handler) MetadataIndexErrors(ctx context.Context, p gen.IndexErrorsParams) (gen.IndexErrorsResult, error) {
	return h.s.backend.IndexErrors(p)
}

// MetadataSupport answers a page of vendor support data (1.2).
func (h handler) MetadataSupport(ctx context.Context, p gen.SupportParams) (gen.SupportResult, error) {
	return h.s.backend.Support(p)
}

// MetadataSupportFiles answers support data of named files (1.3).
func (h handler) MetadataSupportFiles(ctx context.Context, p gen.SupportFilesParams) (gen.SupportFilesResult, error) {
	return h.s.backend.SupportFiles(p)
}

// MetadataPreviewProperty answers metadata/previewProperty (1.6-1.8).
func (h handler) MetadataPreviewProperty(ctx context.Context, p gen.PropertyEditParams) (gen.PreviewResult, error) {
	return h.s.backend.PreviewProperty(p)
}

// MetadataPropertyEditing answers metadata/propertyEditing (1.6-1.8).
func (h handler) MetadataPropertyEditing(ctx context.Context, p gen.ObjectParams) (gen.EditingResult, error) {
	return h.s.backend.PropertyEditing(p)
}

// MetadataPropertyReferenceChoices answers metadata/propertyReferenceChoices (1.6-1.8).
func (h handler) MetadataPropertyReferenceChoices(ctx context.Context, p gen.PropertyPathParams) (gen.ReferenceChoicesResult, error) {
	return h.s.backend.PropertyReferenceChoices(p)
}

// MetadataPropertyTypeChoices answers metadata/propertyTypeChoices (1.6-1.8).
func (h handler) MetadataPropertyTypeChoices(ctx context.Context, p gen.PropertyPathParams) (gen.TypeChoicesResult, error) {
	return h.s.backend.PropertyTypeChoices(p)
}

// MetadataPropertyValueChoices answers metadata/propertyValueChoices (1.6-1.8).
func (h handler) MetadataPropertyValueChoices(ctx context.Context, p gen.ValueChoicesParams) (gen.ValueChoicesResult, error) {
	return h.s.backend.PropertyValueChoices(p)
}

// MetadataUndoProperty answers metadata/undoProperty (1.6-1.8).
func (h handler) MetadataUndoProperty(ctx context.Context, p gen.UndoPropertyParams) (gen.PropertyWriteResult, error) {
	return h.s.backend.UndoProperty(p)
}

// MetadataUpdateProperty answers metadata/updateProperty (1.6-1.8).
func (h handler) MetadataUpdateProperty(ctx context.Context, p gen.PropertyEditParams) (gen.PropertyWriteResult, error) {
	if writeStarted != nil {
		writeStarted(ctx, string(p.ObjectID))
	}
	return h.s.backend.UpdateProperty(p)
}

// writeStarted lets the tests hold a write that has started (a property
// update or a rename, named by the object it changes), so that a cancel
// arrives exactly then.
var writeStarted func(ctx context.Context, objectID string)

// MetadataRenamePreview answers metadata/renamePreview (1.9).
func (h handler) MetadataRenamePreview(ctx context.Context, p gen.RenamePreviewParams) (gen.RenamePreviewResult, error) {
	return h.s.backend.RenamePreview(p)
}

// MetadataRenameApply answers metadata/renameApply (1.9).
func (h handler) MetadataRenameApply(ctx context.Context, p gen.RenameApplyParams) (gen.RenameApplyResult, error) {
	if writeStarted != nil {
		writeStarted(ctx, string(p.ObjectID))
	}
	return h.s.backend.RenameApply(p)
}
