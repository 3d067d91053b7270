// Package pagecheck is what the page's checker does, in plain Go: it checks a
// record as `agui check --json` does and answers with the exact JSON the
// command prints, plus a view of the same result for the page to render.
// The WebAssembly program (agui/page/wasm) only moves values between
// JavaScript and this package, so everything here is tested natively.
package pagecheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"

	"github.com/contractkit/contractkit/agui"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Forms of a rendered result, as Result.RenderJSON chose it.
const (
	FormFull    = "full"
	FormCompact = "compact"
	FormRefused = "refused"
)

// Answer is the page's answer for one record.
type Answer struct {
	// Error says why the input could not be checked at all (agui check
	// exits 2 and prints nothing on standard output); the rest is empty.
	Error string
	// JSON is what `agui check --json` prints for the record, byte for byte.
	JSON []byte
	// Form is the form RenderJSON chose: full, compact or refused.
	Form string
	// View is the result for the page to render, the same as JSON but with
	// every raw value of the record (state, results, metadata, structured
	// content) as a string holding its JSON text, in the chosen form, so
	// that the page shows numbers exactly as the record wrote them. It is
	// nil when the display was refused.
	View     []byte
	Accepted bool
}

// CheckBytes checks a record's bytes.
func CheckBytes(data []byte, opt agui.Options) Answer {
	r, err := agui.Check(data, opt)
	return answer(r, err)
}

// CheckTutorial checks the built-in tutorial example, as `agui check` does
// when given no file.
func CheckTutorial(profile string) Answer {
	return CheckBytes(agui.TutorialExample(), agui.Options{Profile: profile, Source: agui.TutorialSource, Example: true})
}

// CheckValues checks events given as the JSON text of an array, which the
// page's programmatic input wrote from JavaScript values after reading
// them by its rules. The events are handed to agui.CheckValues, so the
// programmatic input of the page is checked as the Go API's is.
func CheckValues(text []byte, opt agui.Options) Answer {
	tree, err := strictjson.Parse(text, strictjson.Options{})
	if err != nil {
		return Answer{Error: "the page's input did not write valid JSON (a bug of the page): " + err.Error()}
	}
	events, ok := tree.Interface().([]any)
	if !ok {
		return Answer{Error: "the page's input did not write an array of events (a bug of the page)"}
	}
	r, err := agui.CheckValues(events, opt)
	return answer(r, err)
}

// Reject answers for a programmatic input the page refused by one of its
// own rules before anything was checked.
func Reject(f agui.Finding, opt agui.Options) Answer {
	r, err := agui.RejectInput(f, opt)
	return answer(r, err)
}

func answer(r *agui.Result, err error) Answer {
	if err != nil {
		return Answer{Error: err.Error()}
	}
	out, err := r.RenderJSON()
	a := Answer{JSON: out, Accepted: r.Accepted}
	var refused *agui.RefusedError
	switch {
	case errors.As(err, &refused):
		a.Form = FormRefused
		return a
	case err != nil:
		return Answer{Error: err.Error()}
	}
	// The full form is indented, the compact one is not.
	a.Form = FormFull
	if !bytes.HasPrefix(out, []byte("{\n")) {
		a.Form = FormCompact
	}
	a.View = view(r, a.Form == FormCompact)
	return a
}

var rawType = reflect.TypeFor[json.RawMessage]()

// view renders r with every raw value replaced by a JSON string holding
// its text, indented unless compact. It changes r.
func view(r *agui.Result, compact bool) []byte {
	textOf(reflect.ValueOf(r), compact)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		// r held JSON the checker wrote and now holds strings; failing to
		// encode it is a bug of this package.
		panic("pagecheck: encode view: " + err.Error())
	}
	return bytes.TrimSpace(b.Bytes())
}

func textOf(v reflect.Value, compact bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			textOf(v.Elem(), compact)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				textOf(v.Field(i), compact)
			}
		}
	case reflect.Slice:
		if v.Type() == rawType {
			if v.Len() > 0 {
				v.SetBytes(displayText(v.Bytes(), compact))
			}
			return
		}
		for i := 0; i < v.Len(); i++ {
			textOf(v.Index(i), compact)
		}
	}
}

// displayText returns the JSON string literal of raw's text, as the page
// shows it.
func displayText(raw []byte, compact bool) []byte {
	var b bytes.Buffer
	var err error
	if compact {
		err = json.Compact(&b, raw)
	} else {
		err = json.Indent(&b, raw, "", "  ")
	}
	if err != nil {
		b.Reset()
		b.Write(raw)
	}
	return strictjson.AppendString(nil, b.String())
}
