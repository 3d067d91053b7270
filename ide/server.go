// Package ide serves the eska IDE API over the ide/rpc transport. It holds
// the protocol side: version negotiation, capabilities by minor version
// and opt-in, method availability, and the mapping of errors to the
// contract's codes and kinds. Every name, code, limit and DTO comes from
// generated/ide.
//
// The metadata methods are served by the Designer XML backend in
// ide/metadata; this package maps them and owns the protocol rules.
package ide

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata"
	"github.com/contractkit/contractkit/ide/rpc"
	"github.com/contractkit/contractkit/runtime/genrt"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// ManifestName is the file that marks an eska project.
const ManifestName = "eska.toml"

// Server implements rpc.Handler for the IDE API.
type Server struct {
	version string // the server's own version, reported by initialize

	negotiated *gen.APIVersion // nil before initialize succeeds
	versions   map[string]bool // since: versions at most the negotiated one
	edits      bool            // the client opted in to property editing
	caps       map[string]bool // the capabilities initialize reported, by name
	diag       func(code string)
	backend    *metadata.Backend
	notify     func(method string, params []byte)
}

// NewServer returns the protocol side of `eska ide --stdio`; version is
// the eska build's version, diag receives short machine codes for stderr.
func NewServer(version string, diag func(code string)) *Server {
	if diag == nil {
		diag = func(string) {}
	}
	s := &Server{version: version, diag: diag}
	s.backend = metadata.New(func(method string, params []byte) {
		if s.notify != nil {
			s.notify(method, params)
		}
	})
	s.backend.Diag = diag
	return s
}

// SetNotifier sets where server notifications (metadata/changed,
// metadata/indexProgress) go: the transport's writer, from the worker.
func (s *Server) SetNotifier(notify func(method string, params []byte)) { s.notify = notify }

// Config returns the transport configuration for s, with every limit and
// code taken from the contract.
func (s *Server) Config(stderr io.Writer) rpc.Config {
	return rpc.Config{
		Limits: rpc.Limits{
			MaxHeaderBytes:       gen.MaxHeaderBytes,
			MaxRequestBytes:      gen.MaxRequestBytes,
			MaxResponseBytes:     gen.MaxResponseBytes,
			MaxDepth:             gen.MaxDepth,
			MaxBatchItems:        gen.MaxBatchItems,
			MaxPendingRequests:   gen.MaxPendingRequests,
			MaxQueuedBytes:       gen.MaxQueuedBytes,
			MaxWriterQueueBytes:  gen.MaxWriterQueueBytes,
			BatchReserveBytes:    gen.BatchResponseReserveBytes,
			MaxIDLength:          gen.MaxRequestIDLength,
			MaxStderrDiagnostics: gen.MaxStderrDiagnostics,
		},
		Codes: rpc.Codes{
			ParseError: gen.CodeParseError, InvalidRequest: gen.CodeInvalidRequest, MethodNotFound: gen.CodeMethodNotFound,
			InvalidParams: gen.CodeInvalidParams, InternalError: gen.CodeInternalError,
			Message: func(code int64) string { info, _ := gen.LookupError(code); return info.Message },
		},
		Errors: rpc.DomainErrors{
			ResourceLimit: func(resource string, limit int) *rpc.Error {
				return wire(metadata.DomainError(gen.DomainErrorKindResourceLimit, gen.ResourceLimitDetails{Resource: gen.LimitedResource(resource), Limit: int64(limit)}))
			},
			Cancelled: func() *rpc.Error { return wire(metadata.DomainError(gen.DomainErrorKindCancelled, gen.EmptyDetails{})) },
			ResponseTooLarge: func(limit int) *rpc.Error {
				return wire(metadata.DomainError(gen.DomainErrorKindResponseTooLarge, gen.ResponseTooLargeDetails{LimitBytes: int64(limit)}))
			},
			InvalidState: func(state string) *rpc.Error {
				return wire(metadata.DomainError(gen.DomainErrorKindInvalidState, gen.InvalidStateDetails{State: gen.LifecycleState(state)}))
			},
		},
		Lifecycle: rpc.Lifecycle{
			Initialize: gen.MethodInitialize, Shutdown: gen.MethodShutdown,
			Exit: gen.NotificationExit, CancelRequest: gen.NotificationCancelRequest,
		},
		JSONRPCVersion: gen.JSONRPCVersion,
		Handler:        s,
		Stderr:         stderr,
	}
}

// Kind classifies a method name by the contract's tables.
func (s *Server) Kind(method string) rpc.Kind {
	if _, ok := gen.LookupMethod(method); ok {
		return rpc.Request
	}
	for _, n := range gen.Notifications {
		if n.Name == method && n.Direction == gen.DirectionClientToServer {
			return rpc.Notification
		}
	}
	return rpc.Unknown
}

// Class says which requests keep their result when cancelled after they
// started (lifecycle, refresh, index control and writes commit state): the
// spec marks them, so a new committing method needs no change here.
func (s *Server) Class(method string) rpc.CancelClass {
	if info, ok := gen.LookupMethod(method); ok && info.Commits {
		return rpc.Committing
	}
	return rpc.ReadOnly
}

// Call checks that the method exists for the negotiated version and its
// capabilities, before its params are read: a method of a later minor, or
// one whose capability was not granted, does not exist for this client.
func (s *Server) Call(ctx context.Context, method string, params *strictjson.Value) (json.RawMessage, *rpc.Error) {
	info, _ := gen.LookupMethod(method)
	if method != gen.MethodInitialize {
		if s.negotiated == nil || !s.since(info.Since) {
			return nil, wire(gen.NewError(gen.CodeMethodNotFound, nil))
		}
		if info.Capability != "" && !s.granted(info.Capability) {
			if method == gen.MethodMetadataUpdateProperty || method == gen.MethodMetadataUndoProperty {
				// A client of 1.6 or later without the opt-in is told why.
				optIn := gen.PropertyReadOnlyReasonOptIn
				return nil, wire(metadata.DomainError(gen.DomainErrorKindPropertyReadOnly, gen.PropertyReadOnlyDetails{Reason: &optIn}))
			}
			return nil, wire(gen.NewError(gen.CodeMethodNotFound, nil))
		}
	}
	result, err := gen.DispatchTree(ctx, handler{s}, method, params)
	if err != nil {
		var re *gen.RPCError
		if errors.As(err, &re) {
			return nil, wire(re)
		}
		s.diag("internal-error")
		return nil, wire(gen.NewError(gen.CodeInternalError, nil))
	}
	return result, nil
}

// Notify runs a client notification through the generated dispatcher.
func (s *Server) Notify(ctx context.Context, method string, params *strictjson.Value) error {
	return gen.DispatchNotificationTree(ctx, handler{s}, method, params)
}

// Background runs descriptors of search indexing between requests, one
// at a time, for as long as no request is waiting.
func (s *Server) Background(ctx context.Context) bool { return s.backend.BackgroundUntil(ctx) }

// Close releases the session when the process ends; the disk stays as it is.
func (s *Server) Close() { s.backend.Shutdown() }

// since reports whether a version is at most the negotiated one; the
// answers are kept, one per version the contract names, for the session.
func (s *Server) since(version string) bool {
	ok, known := s.versions[version]
	if !known {
		ok = genrt.CompareVersions(version, versionString(*s.negotiated)) <= 0
		if s.versions == nil {
			s.versions = map[string]bool{}
		}
		s.versions[version] = ok
	}
	return ok
}

func versionString(v gen.APIVersion) string {
	return genrt.FormatVersion(v.Major, v.Minor)
}

// wire turns a generated error into the transport's error response.
func wire(e *gen.RPCError) *rpc.Error {
	out := &rpc.Error{Code: e.Code, Message: e.Message}
	if e.Data != nil {
		// Generated DTOs write themselves exactly; encoding/json would only
		// re-check and compact what they write.
		var data []byte
		var err error
		if m, ok := e.Data.(json.Marshaler); ok {
			data, err = m.MarshalJSON()
		} else {
			data, err = json.Marshal(e.Data)
		}
		if err != nil {
			return &rpc.Error{Code: gen.CodeInternalError, Message: gen.NewError(gen.CodeInternalError, nil).Message}
		}
		out.Data = data
	}
	return out
}

// granted reports whether initialize reported the capability as true:
// the methods a capability gates exist only when it does.
func (s *Server) granted(capability string) bool { return s.caps[capability] }

// capabilities reports what this build offers under the negotiated minor:
// the 1.0 set the contract fixes, and each later capability only to a
// client whose minor has it. Support data (1.2, 1.3), picture previews
// (1.4), property presentation (1.5) and, with the opt-in, property
// editing (1.6-1.8), rename (1.9), linked edits (1.10) and unsigned
// integers (1.11) are served, and the separate update command (1.1) is
// there; a false capability keeps its method unavailable.
func (s *Server) capabilities() gen.Capabilities {
	c := gen.Capabilities{
		DesignerXML: true, ReadOnly: true, DiskCache: true, Search: true, ClientFileEvents: true,
		Batch: true, MultiContext: false,
		SupportedProjectTypes: []gen.ProjectType{gen.ProjectTypeConfiguration, gen.ProjectTypeExtension, gen.ProjectTypeProcessing, gen.ProjectTypeReport},
	}
	minor := versionString(*s.negotiated)
	offer := func(name string) *bool {
		for _, info := range gen.CapabilityTable {
			if info.Name == name && genrt.CompareVersions(info.Since, minor) <= 0 {
				f := false
				return &f
			}
		}
		return nil
	}
	// The CLI has `eska update` (1.1); it grants nothing through this API.
	if c.SelfUpdate = offer(gen.CapabilitySelfUpdate); c.SelfUpdate != nil {
		*c.SelfUpdate = true
	}
	// Support data (1.2, 1.3) is served for every project: one without a
	// support file has nothing under vendor support.
	if c.SupportPolicy = offer(gen.CapabilitySupportPolicy); c.SupportPolicy != nil {
		*c.SupportPolicy = true
	}
	if c.SupportFiles = offer(gen.CapabilitySupportFiles); c.SupportFiles != nil {
		*c.SupportFiles = true
	}
	if c.PicturePreview = offer(gen.CapabilityPicturePreview); c.PicturePreview != nil {
		*c.PicturePreview = true
	}
	if c.PropertyPresentation = offer(gen.CapabilityPropertyPresentation); c.PropertyPresentation != nil {
		*c.PropertyPresentation = true
	}
	// Property editing (1.6) only for a client that asked for it; the
	// server is then no longer read-only.
	if c.PropertyEditing = offer(gen.CapabilityPropertyEditing); c.PropertyEditing != nil && s.edits {
		*c.PropertyEditing = true
		c.ReadOnly = false
	}
	// Rename (1.9), linked numerator edits (1.10) and unsigned 64-bit
	// properties (1.11) come with the same opt-in.
	for _, capability := range []struct {
		name string
		set  **bool
	}{
		{gen.CapabilityMetadataRename, &c.MetadataRename},
		{gen.CapabilityLinkedPropertyEdits, &c.LinkedPropertyEdits},
		{gen.CapabilityUnsignedIntegerProperties, &c.UnsignedIntegerProperties},
	} {
		if *capability.set = offer(capability.name); *capability.set != nil && s.edits {
			**capability.set = true
		}
	}
	return c
}
