package genrt

// Presence says what an optional, nullable member was on the wire: absent,
// null, or a value. The three are different things to the contract (the
// eska IDE API sends null for "no linked context" and leaves the member out
// for clients that do not know it), so generated code keeps them apart.
type Presence uint8

const (
	// Absent: the member was not sent.
	Absent Presence = iota
	// Null: the member was sent as null.
	Null
	// Present: the member was sent with a value.
	Present
)

// Nullable is an optional member that may also be null. The zero value is
// absent.
type Nullable[T any] struct {
	State Presence
	Value T
}

// Some returns a member that holds v.
func Some[T any](v T) Nullable[T] { return Nullable[T]{State: Present, Value: v} }

// NullOf returns a member sent as null.
func NullOf[T any]() Nullable[T] { return Nullable[T]{State: Null} }

// Get returns the value and whether there is one (false when absent or null).
func (n Nullable[T]) Get() (T, bool) { return n.Value, n.State == Present }

// IsNull reports whether the member was sent as null.
func (n Nullable[T]) IsNull() bool { return n.State == Null }

// IsAbsent reports whether the member was not sent.
func (n Nullable[T]) IsAbsent() bool { return n.State == Absent }
