package agui

import (
	"reflect"
	"strconv"
	"strings"
	"sync"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/internal/strictjson"
)

// exclusion is an AG-UI 1.1 type the stand does not support: any value of
// it in an event rejects the record with the exclusion's rule. The types
// are the generated ones, so the stand's refusals follow the contract.
type exclusion struct {
	typ  reflect.Type
	rule string
	why  string
}

var standExclusions = []exclusion{
	{reflect.TypeFor[contract.ResumeEntry](), contract.RuleUnsupportedResume, "resuming a stopped run is not supported by the stand"},
	{reflect.TypeFor[contract.SubagentRunID](), contract.RuleUnsupportedNestedAgents, "the stand does not support nested agents: subagent attribution is not accepted"},
	{reflect.TypeFor[contract.InterruptResponseSchema](), contract.RuleUnsupportedResponseSchemaExpiry, "the stand does not support response schemas of interrupts"},
	{reflect.TypeFor[contract.InterruptExpiry](), contract.RuleUnsupportedResponseSchemaExpiry, "the stand does not support expiry of interrupts"},
	{reflect.TypeFor[contract.TokenUsage](), contract.RuleUnsupportedUsageRunInput, "the stand does not support token usage"},
	{reflect.TypeFor[contract.RunAgentInput](), contract.RuleUnsupportedUsageRunInput, "the stand does not support run input"},
}

func excluded(t reflect.Type) *exclusion {
	for i := range standExclusions {
		if standExclusions[i].typ == t {
			return &standExclusions[i]
		}
	}
	return nil
}

// checkExclusions walks a decoded event and rejects the first value of a
// type the stand excludes. Children are visited before the value holding
// them, so resume entries inside a run input are named as what they are.
// Only values whose type may hold an excluded type are visited at all.
func checkExclusions(i int, ev contract.Event) error {
	var path []string
	if f := exclusionsIn(reflect.ValueOf(ev), &path); f != nil {
		f.Event = i
		return f
	}
	return nil
}

// typeInfo caches what the walk needs of a struct type: the JSON name of
// each field, and which fields may hold an excluded type.
type typeInfo struct {
	names []string
	walk  []bool
}

var (
	infoMu   sync.Mutex
	infos    = map[reflect.Type]*typeInfo{}
	mayHolds = map[reflect.Type]bool{}
)

// mayHold reports whether a value of type t can hold a value of an
// excluded type. Types of the contract are finite, but they may refer to
// themselves, so a type under study counts as not holding one.
func mayHold(t reflect.Type) bool {
	infoMu.Lock()
	defer infoMu.Unlock()
	return mayHoldLocked(t)
}

func mayHoldLocked(t reflect.Type) bool {
	if v, ok := mayHolds[t]; ok {
		return v
	}
	mayHolds[t] = false // while under study
	hold := excluded(t) != nil
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		hold = hold || mayHoldLocked(t.Elem())
	case reflect.Interface:
		hold = true // a union: its variants are only known at run time
	case reflect.Struct:
		for k := 0; k < t.NumField(); k++ {
			hold = mayHoldLocked(t.Field(k).Type) || hold
		}
	}
	mayHolds[t] = hold
	return hold
}

func infoOf(t reflect.Type) *typeInfo {
	infoMu.Lock()
	ti := infos[t]
	infoMu.Unlock()
	if ti != nil {
		return ti
	}
	ti = &typeInfo{names: make([]string, t.NumField()), walk: make([]bool, t.NumField())}
	for k := 0; k < t.NumField(); k++ {
		name, _, _ := strings.Cut(t.Field(k).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		ti.names[k] = name
		ti.walk[k] = mayHold(t.Field(k).Type)
	}
	infoMu.Lock()
	infos[t] = ti
	infoMu.Unlock()
	return ti
}

func hit(x *exclusion, path []string) *fail {
	ptr := ""
	for _, t := range path {
		ptr = strictjson.AppendPointer(ptr, t)
	}
	return &fail{Finding{Pointer: ptr, Rule: x.rule, Message: x.why}}
}

func exclusionsIn(v reflect.Value, path *[]string) *fail {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return exclusionsIn(v.Elem(), path)
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		if v.Type().Elem().Kind() != reflect.Uint8 {
			if x := excluded(v.Type().Elem()); x != nil && v.Len() > 0 {
				return hit(x, *path)
			}
			if mayHold(v.Type().Elem()) {
				for k := 0; k < v.Len(); k++ {
					*path = append(*path, strconv.Itoa(k))
					if f := exclusionsIn(v.Index(k), path); f != nil {
						return f
					}
					*path = (*path)[:len(*path)-1]
				}
			}
		}
	case reflect.Struct:
		ti := infoOf(v.Type())
		for k, name := range ti.names {
			if !ti.walk[k] {
				continue
			}
			*path = append(*path, name)
			if f := exclusionsIn(v.Field(k), path); f != nil {
				return f
			}
			*path = (*path)[:len(*path)-1]
		}
	}
	if x := excluded(v.Type()); x != nil {
		return hit(x, *path)
	}
	return nil
}
