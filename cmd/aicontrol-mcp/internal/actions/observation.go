package actions

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Observation is what the adapter needs of a project's observation: the
// schemaVersion it is written in and the actions available right now. The
// rest of the observation is the project's and passes through unread.
type Observation struct {
	// SchemaVersion is canonical JSON (see CanonicalSchemaVersion).
	SchemaVersion string
	// Available lists availableActions in the observation's order.
	Available []string
}

// ErrSchemaMismatch is a catalog written for another observation schema.
var ErrSchemaMismatch = errors.New("observation schemaVersion does not match the actions file")

// ReadObservation reads the members the adapter relies on. Both are
// required: an observation without schemaVersion cannot be checked, and
// one without availableActions cannot say which tools to publish.
func ReadObservation(raw json.RawMessage) (Observation, error) {
	v, err := strictjson.Parse(raw, strictjson.Options{})
	if err != nil {
		return Observation{}, fmt.Errorf("observation: %v", err)
	}
	if v.Kind != strictjson.Object {
		return Observation{}, fmt.Errorf("observation is %s, not an object", v.Kind)
	}
	sv, err := CanonicalSchemaVersion(v.Get("schemaVersion"))
	if err != nil {
		return Observation{}, fmt.Errorf("observation/schemaVersion: %v", err)
	}
	list := v.Get("availableActions")
	if list == nil || list.Kind != strictjson.Array {
		return Observation{}, errors.New("observation/availableActions: want an array of action names")
	}
	obs := Observation{SchemaVersion: sv, Available: make([]string, 0, len(list.Elems))}
	for i, e := range list.Elems {
		if e.Kind != strictjson.String {
			return Observation{}, fmt.Errorf("observation/availableActions/%d: want a string, got %s", i, e.Kind)
		}
		obs.Available = append(obs.Available, e.Str)
	}
	return obs, nil
}

// CheckSchema reports whether the observation is written in the schema
// version the catalog declares.
func (f *File) CheckSchema(obs Observation) error {
	if obs.SchemaVersion != f.SchemaVersion {
		return fmt.Errorf("%w: the game publishes schemaVersion %s, %s declares %s; update the actions file for the game's schema (or run the game build it was written for)",
			ErrSchemaMismatch, obs.SchemaVersion, f.Path, f.SchemaVersion)
	}
	return nil
}

// Split divides the available action names into those the catalog
// describes (in catalog order) and those it does not (in observation order).
func (f *File) Split(available []string) (typed []*Action, untyped []string) {
	on := make(map[string]bool, len(available))
	for _, n := range available {
		if on[n] {
			continue
		}
		on[n] = true
		if _, ok := f.byName[n]; !ok {
			untyped = append(untyped, n)
		}
	}
	for _, a := range f.Actions {
		if on[a.Name] {
			typed = append(typed, a)
		}
	}
	return typed, untyped
}
