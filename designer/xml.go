package designer

import (
	"bytes"
	"encoding/xml"
	"fmt"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// Limits bound what one XML file may cost. A descriptor larger or deeper
// than these is refused as a whole rather than read in part.
type Limits struct {
	MaxBytes int // file size
	MaxDepth int // element nesting
}

// DefaultLimits are generous for Designer descriptors: the largest in the
// shared corpora is about 250 KB and 20 levels deep.
var DefaultLimits = Limits{MaxBytes: 16 << 20, MaxDepth: 128}

// Reasons of a ParseError: the IDE API's SourceErrorReason values, which
// xml_invalid carries.
const (
	ReasonTooLarge        = string(gen.SourceErrorReasonTooLarge)
	ReasonTooDeep         = string(gen.SourceErrorReasonTooDeep)
	ReasonMalformed       = string(gen.SourceErrorReasonMalformed)
	ReasonInvalidMetadata = string(gen.SourceErrorReasonInvalidMetadata)
)

// ParseError is a file that could not be read as a whole.
type ParseError struct {
	Path   string
	Reason string // one of the Reason constants
	Offset int64  // byte offset of the problem, -1 when unknown
	Msg    string
}

func (e *ParseError) Error() string {
	if e.Offset >= 0 {
		return fmt.Sprintf("%s: byte %d: %s: %s", e.Path, e.Offset, e.Reason, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.Path, e.Reason, e.Msg)
}

// Element is one XML element with the byte range it covers in the
// original file (BOM and CRLF included).
type Element struct {
	Space, Local string // namespace URI and local name
	Attrs        []xml.Attr
	Children     []*Element
	// Text is the element's character data when it has no child elements.
	Text string
	// Mixed is set when non-blank text sits beside child elements.
	Mixed      bool
	Start, End int64
}

// Child returns the first child with the local name, or nil.
func (e *Element) Child(local string) *Element {
	if e == nil {
		return nil
	}
	for _, c := range e.Children {
		if c.Local == local {
			return c
		}
	}
	return nil
}

// Attr returns the value of the attribute with the local name.
func (e *Element) Attr(local string) (string, bool) {
	for _, a := range e.Attrs {
		if a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// ParseXML reads data into an element tree. Offsets count from the first
// byte of data, so a UTF-8 BOM shifts them by three. DTDs are refused:
// Designer XML never has one, and entity expansion is a cost no reader of
// untrusted files should take on.
//
// The reading is done by the scanner of scan.go, which accepts what
// encoding/xml's strict Decoder accepts and builds the same tree, except
// that it refuses character data outside the root element other than
// white space.
func ParseXML(path string, data []byte, lim Limits) (*Element, error) {
	return parseXML(path, data, lim, false)
}

// parseXML is ParseXML, building the whole tree or, if summary, only the
// skeleton of a descriptor (see the st constants of scan.go).
func parseXML(path string, data []byte, lim Limits, summary bool) (*Element, error) {
	if len(data) > lim.MaxBytes {
		return nil, &ParseError{Path: path, Reason: ReasonTooLarge, Offset: -1, Msg: fmt.Sprintf("%d bytes is over the limit of %d", len(data), lim.MaxBytes)}
	}
	base := int64(0)
	body := data
	if bytes.HasPrefix(body, bom) {
		body = body[len(bom):]
		base = int64(len(bom))
	}
	return scan(path, body, base, lim, summary)
}
