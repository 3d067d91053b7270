package agui

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// The checker reads a few facts from the generated canonical model that
// the generated Go types do not carry: the tag a union writes, and the tag
// of each variant (a message's role, for instance), so that no member
// name or tag is spelled here.

// modelRef is a type expression of the model.
type modelRef struct {
	Name  string
	Array *modelRef
	Map   *modelRef
}

func (r *modelRef) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &r.Name)
	}
	var m struct {
		Array *modelRef `json:"array"`
		Map   *modelRef `json:"map"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	r.Array, r.Map = m.Array, m.Map
	return nil
}

type modelField struct {
	Name     string   `json:"name"`
	Type     modelRef `json:"type"`
	Required bool     `json:"required"`
}

type modelVariant struct {
	Tag  string `json:"tag"`
	Type string `json:"type"`
}

type modelType struct {
	Name             string         `json:"name"`
	Kind             string         `json:"kind"`
	Fields           []modelField   `json:"fields"`
	AdditionalFields string         `json:"additionalFields"`
	Tag              string         `json:"tag"`
	Variants         []modelVariant `json:"variants"`
	Type             *modelRef      `json:"type"`
}

// model is the part of the canonical model the walker reads.
type model struct {
	types map[string]*modelType
	// Names of the types the checker treats specially, taken from the Go
	// types the generator made of them so that no name is written here.
	event, content, contentPart, metadata, message, nonNull string
	// eventTag and patchTag are the members an event and a JSON Patch
	// operation name their variant in.
	eventTag, patchTag string
	eventTagPtr        string
	// The roles of the messages the sequence checker asks for by kind,
	// looked up once: the checker asks for them for nearly every message.
	roles messageRoles
}

// messageRoles are the tags of the message variants the checker names.
type messageRoles struct{ assistant, tool, activity, reasoning string }

// variantTag returns the tag under which union lists the variant v holds.
func (m *model) variantTag(union string, v any) string {
	return m.variantTagOf(union, reflect.TypeOf(v).Name())
}

// variantTagOf returns the tag under which union lists the object type.
func (m *model) variantTagOf(union, typeName string) string {
	if t := m.types[union]; t != nil {
		for _, v := range t.Variants {
			if v.Type == typeName {
				return v.Tag
			}
		}
	}
	return ""
}

var (
	modelOnce sync.Once
	theModel  *model
	modelErr  error
)

func loadModel() (*model, error) {
	modelOnce.Do(func() {
		var doc struct {
			Model struct {
				Types []*modelType `json:"types"`
			} `json:"model"`
		}
		if err := json.Unmarshal(contract.Model, &doc); err != nil {
			modelErr = fmt.Errorf("agui: the generated model does not decode: %w", err)
			return
		}
		m := &model{types: map[string]*modelType{},
			event:       goTypeName[contract.Event](),
			content:     goTypeName[contract.MessageContent](),
			contentPart: goTypeName[contract.ContentPart](),
			metadata:    goTypeName[contract.Metadata](),
			message:     goTypeName[contract.Message](),
			nonNull:     goTypeName[contract.NonNullValue](),
		}
		for _, t := range doc.Model.Types {
			m.types[t.Name] = t
		}
		patch := goTypeName[contract.JSONPatchOperation]()
		for _, n := range []string{m.event, m.content, m.contentPart, m.metadata, m.message, m.nonNull, patch} {
			if m.types[n] == nil {
				modelErr = fmt.Errorf("agui: the generated model has no type %s", n)
				return
			}
		}
		m.eventTag, m.patchTag = m.types[m.event].Tag, m.types[patch].Tag
		m.eventTagPtr = strictjson.AppendPointer("", m.eventTag)
		m.roles = messageRoles{
			assistant: m.variantTagOf(m.message, goTypeName[contract.AssistantMessage]()),
			tool:      m.variantTagOf(m.message, goTypeName[contract.ToolMessage]()),
			activity:  m.variantTagOf(m.message, goTypeName[contract.ActivityMessage]()),
			reasoning: m.variantTagOf(m.message, goTypeName[contract.ReasoningMessage]()),
		}
		theModel = m
	})
	return theModel, modelErr
}

// goTypeName is the name of a generated Go type, which is the spec's name
// for it (the contract sets no symbols on these types).
func goTypeName[T any]() string { return reflect.TypeFor[T]().Name() }
