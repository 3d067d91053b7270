// Package spec loads the canonical protocol specs under spec/, checks them
// against the meta-schema and the semantic rules the schema cannot express,
// and exposes the one typed model every emitter and contractdiff reads.
//
// Collections keyed by id (constants, types, methods, notifications, events,
// errors, capabilities, rules) are sets: the model keeps them sorted, so the
// order in which a spec lists them never reaches generated output. Fields,
// enum values, union variants and alternatives are sequences: their order is
// part of the contract (it is the order of members on the wire and in docs).
package spec

import (
	"encoding/json"
	"sync"

	"github.com/contractkit/contractkit/internal/jsondoc"
)

// Format is the version of the spec format this package reads.
const Format = 1

// Text is a human-facing text in English and Russian.
type Text struct {
	EN string `json:"en"`
	RU string `json:"ru"`
}

// Get returns the text in lang ("en" or "ru").
func (t Text) Get(lang string) string {
	if lang == "ru" {
		return t.RU
	}
	return t.EN
}

// Stability says how firmly an entry is promised to peers.
type Stability string

const (
	Stable       Stability = "stable"
	Experimental Stability = "experimental"
	Deprecated   Stability = "deprecated"
	Internal     Stability = "internal"
)

// Stabilities lists every stability in the order reports show them.
var Stabilities = []Stability{Stable, Experimental, Deprecated, Internal}

// SourceRef points at the code that implements an entry: Anchor is a literal
// text that must occur in the repository file Path.
type SourceRef struct {
	Path   string `json:"path"`
	Anchor string `json:"anchor"`
	// Line is the 1-based line of the anchor's first occurrence, once the
	// sources have been checked (0 before, or without a repository). It
	// stays out of the canonical model: moving code is not a contract change.
	Line int `json:"-"`
}

// Entry is what every traceable element carries: a stable id, bilingual
// texts, stability, the version it appeared in, and where it is implemented.
type Entry struct {
	ID          string      `json:"id"`
	Title       Text        `json:"title"`
	Description *Text       `json:"description,omitempty"`
	Requirement *Text       `json:"requirement,omitempty"`
	Rationale   *Text       `json:"rationale,omitempty"`
	Stability   Stability   `json:"stability"`
	Since       string      `json:"since"`
	Capability  string      `json:"capability,omitempty"`
	Source      []SourceRef `json:"source,omitempty"`

	// Ptr is the JSON pointer of the entry in its spec file. It depends on
	// the order of the file, so it stays out of the canonical model.
	Ptr string `json:"-"`
}

// Domain is one loaded spec: one protocol.
type Domain struct {
	Format        int             `json:"format"`
	Header        Header          `json:"domain"`
	Constants     []*Constant     `json:"constants"`
	Types         []*Type         `json:"types"`
	Methods       []*Method       `json:"methods"`
	Notifications []*Notification `json:"notifications"`
	Events        []*Event        `json:"events"`
	Errors        []*Error        `json:"errors"`
	Capabilities  []*Capability   `json:"capabilities"`
	Rules         []*Rule         `json:"rules"`
	// Profiles is omitted from the canonical model when empty, so that
	// specs written before profiles existed keep their digest.
	Profiles []*Profile `json:"profiles,omitempty"`
	// Tables, too, is omitted when empty.
	Tables []*Table `json:"tables,omitempty"`
	// Reserved lists wire names and codes that were removed and may not
	// come back with another meaning.
	Reserved []*Reservation `json:"reserved,omitempty"`
	Docs     Docs           `json:"docs"`

	// File is the spec's repository-relative path, e.g. spec/AiControlProtocol.json.
	File string `json:"-"`
	// Digest is "sha256:" and the hex digest of the canonical model.
	Digest string `json:"-"`

	raw       []byte
	doc       any          // the file as decoded JSON, for checks that walk it
	src       *jsondoc.Doc // the file as read: where a pointer's value is
	types     map[string]*Type
	consts    map[string]*Constant
	errorByID map[string]*Error
	capByName map[string]*Capability

	canonical       []byte
	placeholderOnce sync.Once
	placeholderMap  map[string]placeholderValue
}

// Header is the domain's own description.
type Header struct {
	ID            string     `json:"id"`
	Package       string     `json:"package"`
	Title         Text       `json:"title"`
	Description   Text       `json:"description"`
	Version       string     `json:"version"`
	Stability     Stability  `json:"stability"`
	Since         string     `json:"since"`
	Scope         Scope      `json:"scope"`
	RuleKinds     []RuleKind `json:"ruleKinds"`
	InvalidParams string     `json:"invalidParams,omitempty"`
	// Parties are the two ends of the protocol, what each is called and
	// whether this repository implements it. A spec written before parties
	// existed has none; Parties() then gives the old assumption.
	Parties []*Party `json:"parties,omitempty"`
}

// Scope says what the contract covers and what it deliberately leaves out.
type Scope struct {
	Included []Text `json:"included"`
	Excluded []Text `json:"excluded"`
}

// RuleKind is one table of normative rules (wire, security, ...).
type RuleKind struct {
	Kind        string `json:"kind"`
	Title       Text   `json:"title"`
	Description Text   `json:"description"`
}

// ConstantKind classifies a named constant; contractdiff judges changes by it.
type ConstantKind string

const (
	// LimitConstant is a bound the runtime enforces; lowering it narrows the contract.
	LimitConstant ConstantKind = "limit"
	// DefaultConstant is used when the peer or the operator gives no value.
	DefaultConstant ConstantKind = "default"
	// ProtocolConstant is a fixed literal of the wire format.
	ProtocolConstant ConstantKind = "protocol"
)

// Constant is a named limit, default or protocol literal.
type Constant struct {
	Entry
	Symbol string          `json:"symbol"`
	Kind   ConstantKind    `json:"kind"`
	Type   string          `json:"type"`
	Value  json.RawMessage `json:"value"`
	Unit   string          `json:"unit,omitempty"`
	// Direction says what a limit bounds: what a party sends, what it
	// accepts, or what it keeps for itself. Every limit has one, and so
	// does every protocol constant of a current spec: BoundsExact for a
	// value both ends must agree on, a bound like a limit's otherwise. A
	// protocol constant without one (a spec written before they had it)
	// is exact.
	Direction *LimitDirection `json:"direction,omitempty"`
}

// Method is a request with a response.
type Method struct {
	Entry
	Method    string   `json:"method"`
	Symbol    string   `json:"symbol,omitempty"`
	Direction string   `json:"direction"`
	Params    string   `json:"params"`
	Result    *string  `json:"result"`
	Errors    []string `json:"errors"`
	// Commits is true for a method that changes state at a commit point:
	// once it has started, a cancellation does not replace its result.
	Commits  bool           `json:"commits,omitempty"`
	Examples MethodExamples `json:"examples"`

	ParamsType *Type `json:"-"`
	ResultType *Type `json:"-"`
}

// MethodExamples are the executable examples of a method's params and result.
type MethodExamples struct {
	Params Examples `json:"params"`
	Result Examples `json:"result"`
}

// Notification is a message without a response.
type Notification struct {
	Entry
	Method    string  `json:"method"`
	Symbol    string  `json:"symbol,omitempty"`
	Direction string  `json:"direction"`
	Params    *string `json:"params"`

	ParamsType *Type `json:"-"`
}

// Event is a record a server appends and clients read.
type Event struct {
	Entry
	Name      string `json:"name"`
	Symbol    string `json:"symbol,omitempty"`
	Direction string `json:"direction"`
	Payload   string `json:"payload"`

	PayloadType *Type `json:"-"`
}

// Error is a protocol error code.
type Error struct {
	Entry
	Code    int64        `json:"code"`
	Symbol  string       `json:"symbol"`
	Message Text         `json:"message"`
	Data    string       `json:"data,omitempty"`
	Kinds   []*ErrorKind `json:"kinds,omitempty"`

	DataType *Type `json:"-"`
}

// ErrorKind is one domain error kind carried in error.data.kind.
type ErrorKind struct {
	Entry
	Kind    string `json:"kind"`
	Symbol  string `json:"symbol,omitempty"`
	Details string `json:"details,omitempty"`

	DetailsType *Type `json:"-"`
}

// Capability is a feature flag a server announces.
type Capability struct {
	Entry
	Name   string  `json:"name"`
	Symbol string  `json:"symbol,omitempty"`
	Type   TypeRef `json:"type"`
	OptIn  string  `json:"optIn,omitempty"`
}

// Rule is a normative rule of one of the domain's rule kinds.
type Rule struct {
	Entry
	// Polarity says which way the rule moves what a receiver accepts:
	// PolarityRestricts (also "") or PolarityTolerates. contractdiff
	// judges a profile that starts or stops listing the rule by it.
	Polarity string `json:"polarity,omitempty"`
}

// Rule polarities.
const (
	// PolarityRestricts: the rule makes a receiver reject what breaks it.
	PolarityRestricts = "restricts"
	// PolarityTolerates: the rule makes a receiver accept, with a warning,
	// what it would otherwise reject.
	PolarityTolerates = "tolerates"
)

// Tolerates reports whether the rule's polarity is PolarityTolerates.
func (r *Rule) Tolerates() bool { return r != nil && r.Polarity == PolarityTolerates }

// Kind is the rule's kind, the middle segment of its id.
func (r *Rule) Kind() string { return idKind(r.ID) }

// Profile is a named subset of the contract that a runtime enforces as a
// whole: the events it accepts, the limit constants that bound it and the
// rules that apply under it. Its lists are sets of ids, kept sorted.
type Profile struct {
	Entry
	Name      string   `json:"name"`
	Revision  string   `json:"revision,omitempty"`
	Events    []string `json:"events"`
	Constants []string `json:"constants"`
	Rules     []string `json:"rules"`
}

// GoName of a profile's name constant.
func (p *Profile) GoName() string { return GoName(p.Name) }

// Table is data a runtime reads as it is, one generated value per row.
// Its rows are a sequence: their order is the table's.
type Table struct {
	Entry
	Symbol  string                       `json:"symbol"`
	Columns []*TableColumn               `json:"columns"`
	Rows    []map[string]json.RawMessage `json:"rows"`
}

// Column types of a table.
const (
	ColumnString  = "string"
	ColumnInteger = "integer"
	ColumnBoolean = "boolean"
	ColumnStrings = "strings"
	ColumnRule    = "rule"
)

// TableColumn is one column of a table.
type TableColumn struct {
	Name     string   `json:"name"`
	Symbol   string   `json:"symbol,omitempty"`
	Type     string   `json:"type"`
	Required bool     `json:"required,omitempty"`
	Values   []string `json:"values,omitempty"`
	Title    Text     `json:"title"`
}

// GoName is the column's field name in the generated row type.
func (c *TableColumn) GoName() string {
	if c.Symbol != "" {
		return c.Symbol
	}
	return GoName(c.Name)
}

// RowGoName is the generated type of one row of t.
func (t *Table) RowGoName() string { return t.Symbol + "Row" }

// Docs says how the reference pages are cut.
type Docs struct {
	Pages []*Page `json:"pages"`
}

// Page is one generated reference page (besides the index).
type Page struct {
	Slug     string   `json:"slug"`
	Title    Text     `json:"title"`
	Intro    *Text    `json:"intro,omitempty"`
	Sections []string `json:"sections"`
}

// TypeKind is the shape of a named type.
type TypeKind string

const (
	ObjectKind       TypeKind = "object"
	EnumKind         TypeKind = "enum"
	UnionKind        TypeKind = "union"
	AliasKind        TypeKind = "alias"
	AlternativesKind TypeKind = "alternatives"
)

// Type is a named type.
type Type struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Symbol      string    `json:"symbol,omitempty"`
	Kind        TypeKind  `json:"kind"`
	Title       Text      `json:"title"`
	Description Text      `json:"description"`
	Since       string    `json:"since"`
	Stability   Stability `json:"stability"`
	Capability  string    `json:"capability,omitempty"`

	// object
	// Include names object types whose fields come first. After loading,
	// Fields holds the included fields followed by the type's own.
	Include          []string `json:"include,omitempty"`
	Fields           []*Field `json:"fields,omitempty"`
	AdditionalFields string   `json:"additionalFields,omitempty"`
	ExactlyOneOf     []string `json:"exactlyOneOf,omitempty"`
	// enum
	Base   string       `json:"base,omitempty"`
	Values []*EnumValue `json:"values,omitempty"`
	// union
	Tag      string     `json:"tag,omitempty"`
	Variants []*Variant `json:"variants,omitempty"`
	// Open enums and unions are tolerant: a receiver accepts a value (or
	// variant tag) the spec does not list and keeps it raw. Closed is the
	// default, and generated decoders reject unknown values of closed types.
	Open bool `json:"open,omitempty"`
	// Reserved lists the field names (objects), values (enums) or tags
	// (unions) that were removed and may not come back with another meaning.
	Reserved []*Reservation `json:"reserved,omitempty"`
	// alias
	Type        *TypeRef     `json:"type,omitempty"`
	Constraints *Constraints `json:"constraints,omitempty"`
	// alternatives
	Alternatives []*Alternative `json:"alternatives,omitempty"`

	Examples *Examples `json:"examples,omitempty"`

	Ptr string `json:"-"`
}

// GoName is the type's Go identifier.
func (t *Type) GoName() string {
	if t.Symbol != "" {
		return t.Symbol
	}
	return t.Name
}

// Field is a member of an object type.
type Field struct {
	Name        string          `json:"name"`
	Symbol      string          `json:"symbol,omitempty"`
	Type        TypeRef         `json:"type"`
	Required    bool            `json:"required"`
	Nullable    bool            `json:"nullable,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
	Constraints *Constraints    `json:"constraints,omitempty"`
	Description Text            `json:"description"`
	Since       string          `json:"since"`
	Stability   Stability       `json:"stability"`
	Capability  string          `json:"capability,omitempty"`

	// A field with an id is a traceable entry of one of the rule kinds
	// (for example the common command fields of AiControl).
	ID          string      `json:"id,omitempty"`
	Title       *Text       `json:"title,omitempty"`
	Requirement *Text       `json:"requirement,omitempty"`
	Rationale   *Text       `json:"rationale,omitempty"`
	Source      []SourceRef `json:"source,omitempty"`

	Owner *Type  `json:"-"`
	Ptr   string `json:"-"`
}

// GoName is the field's Go identifier.
func (f *Field) GoName() string {
	if f.Symbol != "" {
		return f.Symbol
	}
	return GoName(f.Name)
}

// EnumValue is one value of an enum type.
type EnumValue struct {
	Value       json.RawMessage `json:"value"`
	Symbol      string          `json:"symbol,omitempty"`
	Description Text            `json:"description"`
	Since       string          `json:"since"`
	Stability   Stability       `json:"stability"`
	Capability  string          `json:"capability,omitempty"`

	Ptr string `json:"-"`
}

// String returns a string enum value, or the integer's literal.
func (v *EnumValue) String() string {
	var s string
	if json.Unmarshal(v.Value, &s) == nil {
		return s
	}
	return string(v.Value)
}

// Variant is one alternative of a tagged union.
type Variant struct {
	Tag         string    `json:"tag"`
	Type        string    `json:"type,omitempty"`
	Symbol      string    `json:"symbol,omitempty"`
	Description Text      `json:"description"`
	Since       string    `json:"since"`
	Stability   Stability `json:"stability"`
	Capability  string    `json:"capability,omitempty"`

	Object *Type  `json:"-"`
	Ptr    string `json:"-"`
}

// Alternative is one scalar kind an alternatives type accepts.
type Alternative struct {
	Type        string       `json:"type"`
	Constraints *Constraints `json:"constraints,omitempty"`
}

// Constraints restrict a value beyond its type.
type Constraints struct {
	MinLength *int64          `json:"minLength,omitempty"`
	MaxLength *int64          `json:"maxLength,omitempty"`
	Pattern   string          `json:"pattern,omitempty"`
	Minimum   *Bound          `json:"minimum,omitempty"`
	Maximum   *Bound          `json:"maximum,omitempty"`
	MinItems  *int64          `json:"minItems,omitempty"`
	MaxItems  *int64          `json:"maxItems,omitempty"`
	Const     json.RawMessage `json:"const,omitempty"`
	Clamp     bool            `json:"clamp,omitempty"`

	// A count bound (minLength, maxLength, minItems, maxItems) may name a
	// constant instead of spelling its number, so that a limit stated by a
	// constant is stated once. These hold the constant's id ("" for a
	// literal); once the spec is checked the count field holds its value.
	MinLengthConstant string `json:"-"`
	MaxLengthConstant string `json:"-"`
	MinItemsConstant  string `json:"-"`
	MaxItemsConstant  string `json:"-"`
}

// Bound is a numeric bound, literal or taken from a named constant.
type Bound struct {
	Literal  json.Number `json:"-"`
	Constant string      `json:"-"`
	// Value is the bound's number, resolved through the constant if any.
	Value json.Number `json:"-"`
}

// Examples are values the generated validators and schemas must accept and reject.
type Examples struct {
	Valid   []json.RawMessage `json:"valid,omitempty"`
	Invalid []InvalidExample  `json:"invalid,omitempty"`
}

// InvalidExample is a value that must be rejected at Pointer.
type InvalidExample struct {
	Value   json.RawMessage `json:"value"`
	Pointer string          `json:"pointer"`
	Why     *Text           `json:"why,omitempty"`
}
