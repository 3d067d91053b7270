package project

import (
	"errors"
	"io/fs"

	"github.com/contractkit/contractkit/generated/ide"
)

// ManifestName is the file discovery looks for.
const ManifestName = "eska.toml"

// MaxManifestSize bounds what discovery reads of one manifest, so a huge or
// endless file named eska.toml cannot exhaust memory. A hand-written
// manifest is a few hundred bytes.
const MaxManifestSize = 64 << 10

// Type is what a project's root descriptor is. It is the contract's own type
// so a Project's type goes into ProjectInfo without translation.
type Type = ide.ProjectType

// The project types a manifest may declare.
const (
	TypeConfiguration = ide.ProjectTypeConfiguration
	TypeExtension     = ide.ProjectTypeExtension
	TypeProcessing    = ide.ProjectTypeProcessing
	TypeReport        = ide.ProjectTypeReport
)

// Reason says why opening failed. It is the contract's own enum so an
// OpenError maps onto project_open_failed details without a table.
type Reason = ide.OpenFailureReason

// The reasons an OpenError carries.
const (
	ReasonManifestMissing  = ide.OpenFailureReasonManifestMissing
	ReasonManifestInvalid  = ide.OpenFailureReasonManifestInvalid
	ReasonSelectionInvalid = ide.OpenFailureReasonSelectionInvalid
	ReasonSourceInvalid    = ide.OpenFailureReasonSourceInvalid
	ReasonRootInvalid      = ide.OpenFailureReasonRootInvalid
)

// Selection is the contract's selection union (ide.SelectionCurrent,
// ide.SelectionAll, ide.NamedSelection), taken as decoded from
// workspace/open params so the kind strings live only in the spec.
type Selection = ide.Selection

// Scope says how a project belongs to its context.
type Scope struct {
	// Member is the member name as the workspace manifest lists it; empty
	// for a standalone project.
	Member string
}

// Project is one project of a context. Paths are absolute and lexically
// clean, spelt from the start path rather than with symlinks resolved, so a
// client can relate them to the paths it knows.
type Project struct {
	Scope      Scope
	Type       Type
	Root       string // the directory holding the project's eska.toml
	Manifest   string // the project's eska.toml
	Source     string // the source directory
	Descriptor string // the root descriptor XML
}

// Context is what discovery found from a start path.
type Context struct {
	Root      string // the directory of the context's manifest
	Manifest  string // the context's manifest: the workspace's, or the standalone project's
	Workspace bool
	// Projects are the workspace members in declaration order, or the one
	// standalone project. Discovery validated all of them, so a selection
	// cannot fail on a project it did not pick.
	Projects []Project
	// Current is the member the start lies in; empty at the workspace root
	// and for a standalone project.
	Current string
}

// OpenError is why discovery or selection failed, shaped after the
// project_open_failed details so the server can report it as is.
type OpenError struct {
	Reason Reason
	Path   string // the file or directory concerned
	Err    error  // what is wrong there
}

func (e *OpenError) Error() string {
	msg := string(e.Reason)
	if e.Err != nil {
		msg = e.Err.Error()
	}
	if e.Path == "" {
		return msg
	}
	return e.Path + ": " + msg
}

func (e *OpenError) Unwrap() error { return e.Err }

// problem is an OpenError's Err: a message written for the user, which names
// no path because OpenError puts the path in front, while still unwrapping to
// the underlying error so callers can test for fs.ErrNotExist and the like.
type problem struct {
	msg   string
	cause error
}

func (p *problem) Error() string { return p.msg }
func (p *problem) Unwrap() error { return p.cause }

func fail(reason Reason, path, msg string, cause error) *OpenError {
	return &OpenError{Reason: reason, Path: path, Err: &problem{msg: msg, cause: cause}}
}

// why renders an error's cause without the path an fs error repeats, since
// the OpenError already leads with the path.
func why(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
