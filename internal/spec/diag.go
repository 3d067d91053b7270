package spec

import (
	"fmt"
	"sort"
	"strings"
)

// Severity of a diagnostic: errors stop generation, warnings are listed.
type Severity int

const (
	SevError Severity = iota
	SevWarning
)

// Diagnostic is one problem found in a spec, located by file and JSON pointer.
type Diagnostic struct {
	Severity Severity
	File     string // repository-relative spec path
	Pointer  string // JSON pointer into the file; "" is the whole document
	Msg      string
	EntryID  string // the entry concerned, when there is one

	offset int // byte offset of Pointer in File, for ordering
}

// String renders the diagnostic as file:/pointer: message.
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.File)
	b.WriteByte(':')
	if d.Pointer == "" {
		b.WriteByte('/')
	} else {
		b.WriteString(d.Pointer)
	}
	b.WriteString(": ")
	if d.Severity == SevWarning {
		b.WriteString("warning: ")
	}
	b.WriteString(d.Msg)
	return b.String()
}

// Diagnostics is a list of problems in a stable order.
type Diagnostics []Diagnostic

// Errors returns only the errors.
func (ds Diagnostics) Errors() Diagnostics { return ds.filter(SevError) }

// Warnings returns only the warnings.
func (ds Diagnostics) Warnings() Diagnostics { return ds.filter(SevWarning) }

func (ds Diagnostics) filter(s Severity) Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Severity == s {
			out = append(out, d)
		}
	}
	return out
}

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool { return len(ds.Errors()) > 0 }

// Error joins the errors, one per line, so Diagnostics can be returned as an error.
func (ds Diagnostics) Error() string {
	var lines []string
	for _, d := range ds {
		lines = append(lines, d.String())
	}
	return strings.Join(lines, "\n")
}

// sortDiagnostics orders by file, then position in the file, then message,
// so a run lists problems in reading order and identically every time.
func sortDiagnostics(ds Diagnostics) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.offset != b.offset {
			return a.offset < b.offset
		}
		if a.Pointer != b.Pointer {
			return a.Pointer < b.Pointer
		}
		return a.Msg < b.Msg
	})
}

// reporter collects diagnostics for one spec file.
type reporter struct {
	file string
	d    *Domain
	out  Diagnostics
}

func (r *reporter) errorf(ptr, format string, args ...any) {
	r.add(SevError, ptr, "", fmt.Sprintf(format, args...))
}

func (r *reporter) entryErrorf(ptr, id, format string, args ...any) {
	r.add(SevError, ptr, id, fmt.Sprintf(format, args...))
}

func (r *reporter) warnf(ptr, id, format string, args ...any) {
	r.add(SevWarning, ptr, id, fmt.Sprintf(format, args...))
}

func (r *reporter) add(sev Severity, ptr, id, msg string) {
	off := 0
	if r.d != nil {
		off = r.d.offsetOf(ptr)
	}
	r.out = append(r.out, Diagnostic{Severity: sev, File: r.file, Pointer: ptr, Msg: msg, EntryID: id, offset: off})
}
