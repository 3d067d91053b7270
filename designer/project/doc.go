// Package project finds the eska project context that workspace/open works
// on: a standalone project or a workspace of several member projects, each
// described by an eska.toml manifest. It resolves where each project's
// sources and root descriptor live and which projects a selection names, so
// that the Designer reader only ever sees directories a manifest vouched for.
//
// The package only reads. It never creates, fixes or initialises a manifest:
// the IDE API is read-only towards sources, manifests and Git, and XML
// without a manifest is deliberately not opened.
//
// # Manifest
//
// A manifest is a UTF-8 TOML file named eska.toml of at most
// [MaxManifestSize] bytes. It holds exactly one of two tables, and no key
// besides those below; an unknown key is an error rather than ignored, so a
// misspelt "sourec" cannot silently fall back to the default source. Keys
// are matched exactly, case included. Arrays and tables may nest at most 8
// deep and a line may hold at most 8 dots outside strings and comments:
// far beyond what a manifest needs, and low enough that a hostile file
// cannot keep the TOML decoder busy for minutes.
//
// A standalone project, or a workspace member:
//
//	[project]
//	type = "configuration"  # configuration | extension | processing | report
//	source = "src/cf"       # relative to the manifest's directory; default "src"
//	descriptor = "Name.xml" # processing and report only; relative to source
//
// A workspace root:
//
//	[workspace]
//	members = ["base", "ext"]
//
// Members are directories relative to the workspace manifest, written as
// clean, relative, non-empty paths without "..", each listed once, and each
// must still lie inside the workspace root after symlinks are resolved. Every
// member directory holds its own eska.toml with a [project] table; workspaces
// do not nest. The member's name is the string exactly as listed, which is
// what a named selection and a member scope refer to.
//
// # Root descriptor
//
// For configuration and extension the root descriptor is
// source/Configuration.xml, the name Designer always dumps it under. A
// processing or report dump names its root file after the object, so the
// manifest may give it as descriptor; without it the source directory must
// hold exactly one *.xml file directly, since guessing among several would
// open the wrong object. The source directory, and the descriptor inside it,
// must stay inside the manifest's directory after symlinks are resolved. This
// package does not parse the XML: whether its root kind matches the type is
// the Designer reader's check.
//
// # Discovery
//
// From the start path (absolute; a file starts at its directory) discovery
// walks up to the nearest directory holding eska.toml. A [workspace] there is
// the context, with the start at its root. A [project] there is a member
// when the nearest workspace manifest further up lists its directory;
// otherwise it is standalone. The walk is lexical, so the paths returned are
// spelt the way the client spelt start; only containment checks resolve
// symlinks.
//
// Every manifest discovery reads must be valid, including one further up
// that turns out not to list the project: a broken manifest above could be
// the workspace the user meant, and opening the project standalone instead
// would hide that.
//
// # Selection
//
// A standalone context accepts only current. In a workspace, current means
// every member when the start is at the workspace root and the start's
// member otherwise; all means every member; named means the listed members,
// which must be non-empty, distinct and known. Projects always come back in
// the order the workspace declares its members, so the result does not depend
// on how the client happened to order the names.
package project
