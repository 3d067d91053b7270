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
	"github.com/contractkit/contractkit/internal/errdetail"
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
	grants     gen.Grants      // what the client may use; set by initialize
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
			InvalidParamsData: func(pointer, reason string) []byte {
				b, _ := gen.ErrorDetail(errdetail.At(pointer, reason)).MarshalJSON() // strings always encode
				return b
			},
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
	data, err := e.DataJSON()
	if err != nil {
		return &rpc.Error{Code: gen.CodeInternalError, Message: gen.NewError(gen.CodeInternalError, nil).Message}
	}
	return &rpc.Error{Code: e.Code, Message: e.Message, Data: data}
}

// granted reports whether the client was granted the capability: the
// methods a capability gates exist only when it was.
func (s *Server) granted(capability string) bool { return s.grants.Granted(capability) }

// grantsFor is what this build grants a client of a negotiated version:
// the contract's capabilities of that version whose opt-in the client
// sent (gen.GrantsFor reads both from the capability table), less
// multiContext, which this build does not serve: one process holds one
// discovery context.
func grantsFor(v gen.APIVersion, p gen.InitializeParams) gen.Grants {
	var optIns []string
	if p.AllowPropertyEditsOrDefault() {
		optIns = append(optIns, gen.OptInAllowPropertyEdits)
	}
	return gen.GrantsFor(versionString(v), optIns...).Without(gen.CapabilityMultiContext)
}

// capabilities writes the grants as initialize reports them: a member of
// a later minor than the negotiated one is absent, and readOnly is true
// unless property editing was granted.
func capabilities(g gen.Grants) gen.Capabilities {
	return gen.Capabilities{
		DesignerXML:               g.Granted(gen.CapabilityDesignerXML),
		ReadOnly:                  !g.Granted(gen.CapabilityPropertyEditing),
		DiskCache:                 g.Granted(gen.CapabilityDiskCache),
		Search:                    g.Granted(gen.CapabilitySearch),
		ClientFileEvents:          g.Granted(gen.CapabilityClientFileEvents),
		Batch:                     g.Granted(gen.CapabilityBatch),
		MultiContext:              g.Granted(gen.CapabilityMultiContext),
		SupportedProjectTypes:     []gen.ProjectType{gen.ProjectTypeConfiguration, gen.ProjectTypeExtension, gen.ProjectTypeProcessing, gen.ProjectTypeReport},
		SelfUpdate:                g.Member(gen.CapabilitySelfUpdate),
		SupportPolicy:             g.Member(gen.CapabilitySupportPolicy),
		SupportFiles:              g.Member(gen.CapabilitySupportFiles),
		PicturePreview:            g.Member(gen.CapabilityPicturePreview),
		PropertyPresentation:      g.Member(gen.CapabilityPropertyPresentation),
		PropertyEditing:           g.Member(gen.CapabilityPropertyEditing),
		MetadataRename:            g.Member(gen.CapabilityMetadataRename),
		LinkedPropertyEdits:       g.Member(gen.CapabilityLinkedPropertyEdits),
		UnsignedIntegerProperties: g.Member(gen.CapabilityUnsignedIntegerProperties),
	}
}
