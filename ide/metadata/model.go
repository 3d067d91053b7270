// Package metadata is the Designer XML backend of the eska IDE API: it
// opens the projects a manifest selects, serves the Configurator tree,
// objects, properties and sources lazily from the XML, keeps a search
// index built between requests, and applies the client's file events.
// It writes a source only when the client edits it (edit.go).
//
// Requests run on the transport's single worker, so a session's state is
// not locked and changes only between requests; the goroutines a step
// starts (indexing's read-ahead, rename's file scan) work on copies, and
// the disk cache locks its own directory handle.
//
// What does not need a project or the Backend lives in packages below
// this one, which never import it (internal/layering checks that):
// sourceread reads the source tree, diskcache and edithistory keep the
// derived cache and the undo history signed through signedfile,
// textindex is the search index, treecache the budget of parsed trees,
// supportverdict what the vendor's rules say of an object.
package metadata

import (
	"github.com/contractkit/contractkit/designer"
)

// object is one metadata object the project knows: declared in a
// descriptor already read. Its own children become known when its
// descriptor is read (inline objects are known at once).
type object struct {
	id     string
	info   *designer.KindInfo // nil for an element of unknown kind
	tag    string             // the XML element name
	name   string
	parent *object // the metadata owner; nil for the project root

	desc   string // the descriptor file that defines it (its own, or its owner's)
	own    bool   // desc is a file of its own, read on demand
	loaded bool
	rec    int32  // its record in the search index, plus one; 0 before it has one
	dir    string // the folder of its subordinate files and Ext

	err      error // reading its descriptor failed
	el       *designer.Element
	ns       scope // namespace declarations of its own descriptor's root
	uuid     string
	synonyms []designer.Text
	diags    []designer.Diagnostic // of its own descriptor, or of its own element
	children []*object             // ChildObjects in XML order, unknown ones included

	more *objectMore // what few objects have; nil until one of its fields is set
}

// objectMore holds the fields of an object that only owners, predefined
// items and the root use. Most objects of a large configuration are
// attributes and other leaves: keeping these fields out of object saves
// about a hundred bytes on each (13 MiB on SSL 3.1 × 16).
type objectMore struct {
	// Predefined items, for the kinds that have them.
	predefLoaded bool
	predefErr    error
	predef       []*object
	description  string // a predefined item's Description

	external bool // the root of an external processor or report
	modules  []designer.ModuleRole
	modsDone bool

	kinds map[designer.Kind]int // children by kind, once counted (kindCount)
}

// noMore is what rare returns for an object without objectMore: all zero,
// never written.
var noMore objectMore

// rare returns o's objectMore for reading: a shared zero value when it has
// none. Writers use rareForWrite.
func (o *object) rare() *objectMore {
	if o.more == nil {
		return &noMore
	}
	return o.more
}

// rareForWrite returns o's objectMore, made when it has none.
func (o *object) rareForWrite() *objectMore {
	if o.more == nil {
		o.more = &objectMore{}
	}
	return o.more
}

func (o *object) kind() designer.Kind {
	if o.info == nil {
		return ""
	}
	return o.info.Kind
}

// unsupported reports an object the tree shows only in the unsupported
// group: an unknown kind, or a known kind its owner cannot hold.
func (o *object) unsupported() bool {
	if o.info == nil {
		return true
	}
	if o.parent == nil || o.info.Kind == designer.KindPredefinedItem {
		return false
	}
	return !o.parent.holds(o.info.Kind)
}

// holds reports whether an owner shows children of kind in its tree.
func (o *object) holds(kind designer.Kind) bool {
	if o.info == nil {
		return false
	}
	if o.info.Kind == designer.KindConfiguration {
		return true
	}
	for _, c := range o.collections() {
		if c == kind {
			return true
		}
	}
	return false
}

// collections are the child kinds an object shows. An external data
// processor has no commands.
func (o *object) collections() []designer.Kind {
	if o.info == nil || o.info.Unsupported {
		return nil
	}
	if o.rare().external && o.info.Kind == designer.KindDataProcessor {
		var out []designer.Kind
		for _, c := range o.info.Collections {
			if c != designer.KindCommand {
				out = append(out, c)
			}
		}
		return out
	}
	return o.info.Collections
}
