// Package picture builds the preview of a 1C common picture (CommonPicture)
// from a Designer XML export.
//
// The IDE server calls it on files that anybody may have edited, so the
// package is read-only by construction (it never creates, renames or
// extracts anything), it bounds every read before it happens, and it turns
// every kind of bad input into a Status instead of an error or a panic. The
// caller can then show "broken" and "too large" differently from "no
// picture yet" without parsing messages.
//
// Layout. Only <root>/CommonPictures/<name>/Ext/Picture.xml is read as a
// descriptor. Its Picture/xr:Abs element holds a bare file name. Designer
// stores that file in the directory named after the descriptor,
// Ext/Picture/<file> (every picture of the SSL 3.1 and mdclasses corpora
// does); the wording of the IDE API specification says "relative to the
// Ext directory", so Ext/<file> is looked up as well, after the real layout.
// Both candidates stay inside the picture's own Ext directory.
//
// Nothing is cached: every Load reads the current bytes, because the source
// tree changes under the server and a stale picture is worse than a slow one.
package picture

import (
	"unicode/utf8"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// Status is the outcome of one Load. The values are the tags of the IDE
// API's PicturePreview union.
type Status string

const (
	// StatusReady: MIMEType, Data and FileName are set.
	StatusReady Status = gen.PicturePreviewTagReady
	// StatusMissing: there is no Picture.xml, or the file it names does not
	// exist. This is the normal state of a picture that was never filled.
	StatusMissing Status = gen.PicturePreviewTagMissing
	// StatusUnsupported: the bytes are readable but not one of the image
	// formats a preview can show, or an archive uses a compression method
	// other than Stored and Deflate.
	StatusUnsupported Status = gen.PicturePreviewTagUnsupported
	// StatusInvalid: a descriptor, manifest or archive is malformed, or a
	// name tries to leave the place it must stay in.
	StatusInvalid Status = gen.PicturePreviewTagInvalid
	// StatusTooLarge: a file or an archive entry is over one of the Limits.
	StatusTooLarge Status = gen.PicturePreviewTagTooLarge
	// StatusUnavailable: the file exists but could not be read (permission,
	// I/O error). Retrying later may succeed, which is why it is kept apart
	// from StatusInvalid.
	StatusUnavailable Status = gen.PicturePreviewTagUnavailable
)

// Preview is what the IDE shows for a common picture.
type Preview struct {
	Status Status
	// MIMEType is decided from the content bytes only, because file names
	// and manifest entries in real exports routinely disagree with the
	// content (a .png that is a GIF is not rare).
	MIMEType string
	// Data holds the original bytes of the chosen image, unmodified, so the
	// client renders exactly what the platform would.
	Data []byte
	// FileName is the base name of the chosen file (a caption, never a path),
	// so that nothing about the host's directory layout reaches the client.
	FileName string
	// Detail says in English why the status is not ready. It is meant for
	// logs and tooltips, is not stable, and never contains a host path.
	Detail string
}

// Limits bound what a single Load may read. They exist as a value rather
// than constants so tests can exercise every boundary with small fixtures.
// A zero or negative field means "use the DefaultLimits value".
type Limits struct {
	// Archive is the maximum size in bytes of a referenced ZIP file.
	Archive int64
	// Picture is the maximum size in bytes of one image: a loose file or a
	// decompressed archive entry.
	Picture int64
	// XML is the maximum size in bytes of Picture.xml and of a
	// (decompressed) manifest.xml.
	XML int64
	// Entries is the maximum number of entries in one archive.
	Entries int
	// Depth is the maximum element nesting of any XML read here. Real
	// descriptors are three levels deep; the limit only stops hostile input
	// from costing stack and time.
	Depth int
}

// DefaultLimits are the limits of the IDE API specification, taken from
// the generated contract; the XML depth is this reader's own bound.
var DefaultLimits = Limits{
	Archive: gen.MaxPictureArchiveBytes,
	Picture: gen.MaxPictureBytes,
	XML:     gen.MaxPictureXMLBytes,
	Entries: gen.MaxPictureArchiveEntries,
	Depth:   32,
}

func (l Limits) withDefaults() Limits {
	if l.Archive <= 0 {
		l.Archive = DefaultLimits.Archive
	}
	if l.Picture <= 0 {
		l.Picture = DefaultLimits.Picture
	}
	if l.XML <= 0 {
		l.XML = DefaultLimits.XML
	}
	if l.Entries <= 0 {
		l.Entries = DefaultLimits.Entries
	}
	if l.Depth <= 0 {
		l.Depth = DefaultLimits.Depth
	}
	return l
}

// Load returns the preview of the common picture called name under the
// Designer export sourceRoot, with DefaultLimits.
func Load(sourceRoot, name string) Preview {
	return DefaultLimits.Load(sourceRoot, name)
}

// Load is the package-level Load with the receiver's limits.
func (l Limits) Load(sourceRoot, name string) Preview {
	l = l.withDefaults()
	if sourceRoot == "" {
		return fail(StatusInvalid, "empty source root")
	}
	if !validObjectName(name) {
		return fail(StatusInvalid, "picture name is not a single path element")
	}
	root, f := openRoot(sourceRoot)
	if f != nil {
		return f.preview()
	}
	defer root.close()
	return root.load(name, l)
}

// failure carries a non-ready status through the internal call chain.
type failure struct {
	status Status
	detail string
}

func (f *failure) preview() Preview { return fail(f.status, f.detail) }

func fail(s Status, detail string) Preview { return Preview{Status: s, Detail: detail} }

func failf(s Status, detail string) *failure { return &failure{status: s, detail: detail} }

// validObjectName accepts any Unicode metadata name but nothing that could
// address another directory. 1C identifiers never contain dots, so refusing
// every "..", not only a whole-element one, costs nothing and leaves no
// platform-specific corner to reason about.
func validObjectName(name string) bool {
	if name == "" || name == "." || !utf8.ValidString(name) {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case '/', '\\', 0, ':':
			return false
		}
	}
	for i := 0; i+1 < len(name); i++ {
		if name[i] == '.' && name[i+1] == '.' {
			return false
		}
	}
	return true
}
