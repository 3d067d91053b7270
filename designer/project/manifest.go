package project

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// manifest is one parsed eska.toml: either a project or a workspace.
type manifest struct {
	project *projectDecl // nil for a workspace
	members []string     // the workspace's members, as listed
}

type projectDecl struct {
	typ        Type
	source     string
	descriptor string // "" when the manifest gives none
}

// defaultSource is where a project keeps its sources when the manifest does
// not say, so the common layout needs no source key.
const defaultSource = "src"

// The TOML shape. Pointers tell an absent key from an empty value, which
// matters because an empty source or descriptor is a mistake, not a default.
type rawManifest struct {
	Project   *rawProject   `toml:"project"`
	Workspace *rawWorkspace `toml:"workspace"`
}

type rawProject struct {
	Type       *tomlString `toml:"type"`
	Source     *tomlString `toml:"source"`
	Descriptor *tomlString `toml:"descriptor"`
}

type rawWorkspace struct {
	Members *tomlStrings `toml:"members"`
}

// knownKeys are the only keys a manifest may hold, spelt exactly. BurntSushi
// matches struct fields case-insensitively, so Undecoded alone would let
// "Type" stand in for "type"; checking every key against this set keeps one
// spelling per key.
var knownKeys = map[string]bool{
	"project":            true,
	"project.type":       true,
	"project.source":     true,
	"project.descriptor": true,
	"workspace":          true,
	"workspace.members":  true,
}

// tomlString and tomlStrings check their own TOML type: an error returned
// from UnmarshalTOML comes back as a ParseError carrying the key and its
// position, where the decoder's own mismatch message would name Go types.
type tomlString string

func (s *tomlString) UnmarshalTOML(data any) error {
	v, ok := data.(string)
	if !ok {
		return fmt.Errorf("must be a string, not %s", kindOf(data))
	}
	*s = tomlString(v)
	return nil
}

type tomlStrings []string

func (s *tomlStrings) UnmarshalTOML(data any) error {
	list, ok := data.([]any)
	if !ok {
		return fmt.Errorf("must be an array of strings, not %s", kindOf(data))
	}
	out := make([]string, len(list))
	for i, e := range list {
		v, ok := e.(string)
		if !ok {
			return fmt.Errorf("must be an array of strings, but element %d is %s", i, kindOf(e))
		}
		out[i] = v
	}
	*s = out
	return nil
}

// kindOf names the TOML kind of a decoded value for messages.
func kindOf(data any) string {
	switch data.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case time.Time:
		return "a date-time"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	}
	return fmt.Sprintf("a %T", data)
}

// tomlKinds names the kinds MetaData.Type reports, for the same messages.
var tomlKinds = map[string]string{
	"Integer":   "an integer",
	"Float":     "a float",
	"Datetime":  "a date-time",
	"String":    "a string",
	"Bool":      "a boolean",
	"Array":     "an array",
	"Hash":      "a table",
	"ArrayHash": "an array of tables",
}

// readManifest reads and parses the manifest at path. It stats before
// opening so that a FIFO or device named eska.toml is refused instead of
// blocking the worker on open.
func readManifest(path string) (*manifest, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fail(ReasonManifestInvalid, path, "cannot be read: "+why(err), err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fail(ReasonManifestInvalid, path, "is not a regular file", nil)
	}
	// A manifest is a source like the XML: a link may point elsewhere
	// inside its directory, never out of it.
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, fail(ReasonManifestInvalid, path, "cannot be resolved: "+why(err), err)
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return nil, fail(ReasonManifestInvalid, path, "its directory cannot be resolved: "+why(err), err)
	}
	if !within(dir, real) {
		return nil, fail(ReasonManifestInvalid, path, fmt.Sprintf("resolves to %s, outside its directory %s", real, dir), nil)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fail(ReasonManifestInvalid, path, "cannot be read: "+why(err), err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxManifestSize+1))
	if err != nil {
		return nil, fail(ReasonManifestInvalid, path, "cannot be read: "+why(err), err)
	}
	m, err := parseManifest(data)
	if err != nil {
		return nil, &OpenError{Reason: ReasonManifestInvalid, Path: path, Err: err}
	}
	return m, nil
}

// maxListedKeys keeps the message for a file full of foreign keys readable.
const maxListedKeys = 5

// parseManifest checks a manifest's bytes on their own, without looking at
// the filesystem; errors name no file, the caller puts it in front.
func parseManifest(data []byte) (*manifest, error) {
	if len(data) > MaxManifestSize {
		return nil, fmt.Errorf("manifest is larger than %d bytes", MaxManifestSize)
	}
	if !utf8.Valid(data) {
		return nil, errors.New("manifest is not valid UTF-8")
	}
	if err := checkShape(data); err != nil {
		return nil, err
	}
	var raw rawManifest
	md, decodeErr := toml.Decode(string(data), &raw)
	if decodeErr != nil && len(md.Keys()) == 0 {
		return nil, decodeError(md, decodeErr) // a syntax error
	}
	// Unknown keys go first: decoding matches "Type" to the type field, so
	// with both "Type" and "type" present which of them fails decoding
	// depends on map order, while the unknown key is always the same.
	var unknown []string
	var firstUnknown toml.Key
	seen := map[string]bool{} // an array of tables repeats its keys
	for _, k := range md.Keys() {
		if name := k.String(); !knownKeys[name] && !seen[name] {
			if unknown == nil {
				firstUnknown = k
			}
			unknown = append(unknown, name)
			seen[name] = true
		}
	}
	line := func(key ...string) func(error) error {
		return func(err error) error { return atLine(keyLine(data, key), err) }
	}
	// An unknown undecoded key was reported above; a known one left
	// undecoded means knownKeys and the structs disagree, and is reported
	// rather than ignored.
	if decodeErr == nil {
		for _, k := range md.Undecoded() {
			if name := k.String(); knownKeys[name] {
				unknown = append(unknown, name)
			}
		}
	}
	at := line(firstUnknown...)
	switch n := len(unknown); {
	case n == 1:
		return nil, at(fmt.Errorf("unknown key %s", unknown[0]))
	case n > maxListedKeys:
		return nil, at(fmt.Errorf("unknown keys %s and %d more", strings.Join(unknown[:maxListedKeys], ", "), n-maxListedKeys))
	case n > 1:
		return nil, at(fmt.Errorf("unknown keys %s", strings.Join(unknown, ", ")))
	}
	if decodeErr != nil {
		return nil, decodeError(md, decodeErr)
	}
	hasProject, hasWorkspace := md.IsDefined("project"), md.IsDefined("workspace")
	switch {
	case hasProject && hasWorkspace:
		return nil, errors.New("manifest holds both [project] and [workspace]; it must hold exactly one")
	case hasProject:
		p, err := checkProject(raw.Project, line)
		if err != nil {
			return nil, err
		}
		return &manifest{project: p}, nil
	case hasWorkspace:
		members, err := checkMembers(raw.Workspace, line("workspace", "members"))
		if err != nil {
			return nil, err
		}
		return &manifest{members: members}, nil
	default:
		return nil, errors.New("manifest holds neither [project] nor [workspace]; it must hold exactly one")
	}
}

// lineOf finds the line BurntSushi puts in the few errors that are not a
// ParseError.
var lineOf = regexp.MustCompile(`^toml: line (\d+)\b`)

// decodeError words a decoding error for a person: line and column from a
// ParseError, and for a table given as something else, which BurntSushi
// reports in terms of Go types, which key it was and what it holds.
func decodeError(md toml.MetaData, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		// A syntax error leaves MetaData empty; one raised while decoding
		// values is a type check of tomlString or tomlStrings, whose message
		// reads after the key.
		if len(md.Keys()) > 0 && pe.LastKey != "" {
			msg = pe.LastKey + " " + msg
		}
		return fmt.Errorf("line %d, column %d: %s", pe.Position.Line, pe.Position.Col, msg)
	}
	where := ""
	if m := lineOf.FindStringSubmatch(err.Error()); m != nil {
		where = "line " + m[1] + ": "
	}
	for _, table := range []string{"project", "workspace"} {
		if t := md.Type(table); t != "" && t != "Hash" {
			return fmt.Errorf("%s%s must be a table, not %s", where, table, tomlKinds[t])
		}
	}
	return errors.New(strings.TrimPrefix(err.Error(), "toml: "))
}

// checkProject checks a [project] table; line(key...) places an error on
// the line of the key it is about.
func checkProject(raw *rawProject, line func(key ...string) func(error) error) (*projectDecl, error) {
	if raw == nil {
		raw = &rawProject{}
	}
	if raw.Type == nil {
		return nil, line("project")(errors.New("project.type is missing; want configuration, extension, processing or report"))
	}
	typ := Type(*raw.Type)
	switch typ {
	case TypeConfiguration, TypeExtension, TypeProcessing, TypeReport:
	default:
		return nil, line("project", "type")(fmt.Errorf("project.type %q is not a project type; want configuration, extension, processing or report", *raw.Type))
	}
	p := &projectDecl{typ: typ, source: defaultSource}
	if raw.Source != nil {
		if *raw.Source == "" {
			return nil, line("project", "source")(errors.New("project.source is empty; omit it for the default \"src\""))
		}
		p.source = string(*raw.Source)
	}
	if raw.Descriptor != nil {
		at := line("project", "descriptor")
		if typ != TypeProcessing && typ != TypeReport {
			return nil, at(fmt.Errorf("project.descriptor is only for processing and report; a %s's root descriptor is always Configuration.xml", typ))
		}
		if *raw.Descriptor == "" {
			return nil, at(errors.New("project.descriptor is empty; omit it to use the single *.xml file in the source directory"))
		}
		p.descriptor = string(*raw.Descriptor)
	}
	return p, nil
}

// checkMembers checks workspace.members; at places an error on its line.
func checkMembers(raw *rawWorkspace, at func(error) error) ([]string, error) {
	if raw == nil || raw.Members == nil {
		return nil, errors.New("workspace.members is missing")
	}
	members := *raw.Members
	if len(members) == 0 {
		return nil, at(errors.New("workspace.members is empty; a workspace needs at least one member"))
	}
	seen := make(map[string]bool, len(members))
	for _, name := range members {
		if err := checkMemberName(name); err != nil {
			return nil, at(err)
		}
		if seen[name] {
			return nil, at(fmt.Errorf("workspace member %q is listed twice", name))
		}
		seen[name] = true
	}
	return members, nil
}

// atLine puts "line N: " in front of an error's message when the line is
// known (N > 0).
func atLine(line int, err error) error {
	if line <= 0 {
		return err
	}
	return fmt.Errorf("line %d: %w", line, err)
}

// keyLine returns the line a key is defined on, or 0. The decoder knows it
// but only tells it in an error, so the way to the key is decoded as
// primitives and its value into a probe that fails.
func keyLine(data []byte, key []string) int {
	if len(key) == 0 {
		return 0
	}
	var top map[string]toml.Primitive
	md, err := toml.Decode(string(data), &top)
	if err != nil {
		return 0
	}
	prim, ok := top[key[0]]
	for i := 1; ok && i < len(key); i++ {
		var next map[string]toml.Primitive
		if md.PrimitiveDecode(prim, &next) != nil {
			return 0
		}
		prim, ok = next[key[i]]
	}
	if !ok {
		return 0
	}
	var pe toml.ParseError
	if errors.As(md.PrimitiveDecode(prim, &probe{}), &pe) {
		return pe.Position.Line
	}
	return 0
}

// probe refuses any value, so that decoding it reports where it is.
type probe struct{}

var errProbe = errors.New("probe")

func (*probe) UnmarshalTOML(any) error { return errProbe }

// checkMemberName holds a member to one spelling per directory, so that the
// names a client selects by are unambiguous and cannot leave the workspace
// lexically; leaving it through symlinks is checked on the filesystem.
func checkMemberName(name string) error {
	switch {
	case name == "":
		return errors.New("workspace member name is empty")
	case strings.ContainsRune(name, 0):
		return fmt.Errorf("workspace member %q contains a NUL byte", name)
	case filepath.IsAbs(name):
		return fmt.Errorf("workspace member %q is absolute; members are relative to the workspace manifest", name)
	case name == ".":
		return errors.New("workspace member \".\" is the workspace root itself")
	case !filepath.IsLocal(name) || hasDotDot(name):
		return fmt.Errorf("workspace member %q must not contain \"..\"", name)
	case filepath.Clean(name) != name:
		return fmt.Errorf("workspace member %q is not a clean path; write %q", name, filepath.Clean(name))
	}
	return nil
}

func hasDotDot(name string) bool {
	for _, part := range strings.Split(filepath.ToSlash(name), "/") {
		if part == ".." {
			return true
		}
	}
	return false
}

// statManifest tells whether dir holds a manifest. It uses Lstat so that a
// dangling eska.toml symlink counts as present and is then reported as
// unreadable, rather than silently skipped in favour of a manifest further up.
func statManifest(dir string) (string, bool, error) {
	path := filepath.Join(dir, ManifestName)
	_, err := os.Lstat(path)
	switch {
	case err == nil:
		return path, true, nil
	case errors.Is(err, fs.ErrNotExist):
		return path, false, nil
	default:
		return path, false, fail(ReasonManifestInvalid, path, "cannot be read: "+why(err), err)
	}
}

// The shape limits. BurntSushi's decoder takes time and memory quadratic or
// worse in key depth: a 64 KiB manifest of nested inline tables or one long
// dotted key takes minutes. A valid manifest nests at most two levels and
// needs at most one dot in a key, so these limits only turn away input that
// could never be a manifest, and do so before it reaches the decoder.
const (
	maxNesting  = 8 // open [ and { at once, outside strings and comments
	maxLineDots = 8 // dots on one line outside strings and comments
)

// checkShape enforces the shape limits with a scan that knows only enough
// TOML to skip strings and comments. Where it misreads malformed input, the
// damage stays on one line or inside what it took for a string, so a
// well-formed manifest is never refused by it.
func checkShape(data []byte) error {
	line, depth, dots := 1, 0, 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\n':
			line, dots = line+1, 0
		case '#':
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			if i+2 < len(data) && data[i+1] == c && data[i+2] == c {
				i, line = skipMultiline(data, i+3, c, line)
				dots = 0
				continue
			}
			for i++; i < len(data) && data[i] != c && data[i] != '\n'; i++ {
				if c == '"' && data[i] == '\\' && i+1 < len(data) && data[i+1] != '\n' {
					i++
				}
			}
			if i < len(data) && data[i] == '\n' {
				i-- // an unterminated string ends at the line; count the newline
			}
		case '[', '{':
			if depth++; depth > maxNesting {
				return fmt.Errorf("line %d: arrays and tables nest deeper than %d levels", line, maxNesting)
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		case '.':
			if dots++; dots > maxLineDots {
				return fmt.Errorf("line %d: more than %d dots outside strings; keys nest deeper than a manifest can", line, maxLineDots)
			}
		}
	}
	return nil
}

// skipMultiline skips a multi-line string whose body starts at i and returns
// the index of its last closing quote and the line reached. A closing
// delimiter may be preceded by up to two quotes that belong to the body.
func skipMultiline(data []byte, i int, quote byte, line int) (int, int) {
	for ; i < len(data); i++ {
		switch data[i] {
		case '\n':
			line++
		case '\\':
			if quote == '"' && i+1 < len(data) {
				i++
				if data[i] == '\n' {
					line++
				}
			}
		case quote:
			if i+2 < len(data) && data[i+1] == quote && data[i+2] == quote {
				i += 2
				for extra := 0; extra < 2 && i+1 < len(data) && data[i+1] == quote; extra++ {
					i++
				}
				return i, line
			}
		}
	}
	return i, line
}
