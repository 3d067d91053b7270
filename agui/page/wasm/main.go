//go:build js && wasm

// Command wasm is the stand page's checker: the Go package agui compiled to
// WebAssembly. It hands the page an object of functions (see the page's
// stand.js) and then waits for calls; everything it computes is done by
// package pagecheck, the same code `agui check --json` runs.
package main

import (
	"fmt"
	"runtime/debug"
	"syscall/js"

	"github.com/contractkit/contractkit/agui"
	"github.com/contractkit/contractkit/agui/page/pagecheck"
	contract "github.com/contractkit/contractkit/generated/agui"
)

func main() {
	// The checker allocates a tree per record and drops it; in a page with
	// memory to spare, collecting less often is most of what makes a large
	// record fast. The record's limits bound what one check can hold.
	debug.SetGCPercent(gcPercent)
	api := js.Global().Get("Object").New()
	api.Set("digest", contract.Digest)
	// The tutorial itself, not a hash of it: a hash would link crypto into
	// the checker for one comparison.
	api.Set("tutorial", string(agui.TutorialExample()))
	api.Set("tutorialSource", agui.TutorialSource)
	api.Set("checkBytes", fn(func(args []js.Value) pagecheck.Answer {
		data := make([]byte, args[0].Get("length").Int())
		js.CopyBytesToGo(data, args[0])
		return pagecheck.CheckBytes(data, agui.Options{Profile: args[1].String(), Source: args[2].String()})
	}))
	api.Set("checkTutorial", fn(func(args []js.Value) pagecheck.Answer {
		return pagecheck.CheckTutorial(args[0].String())
	}))
	api.Set("checkValues", fn(func(args []js.Value) pagecheck.Answer {
		return pagecheck.CheckValues([]byte(args[0].String()), agui.Options{Profile: args[1].String(), Source: args[2].String()})
	}))
	api.Set("reject", fn(func(args []js.Value) pagecheck.Answer {
		f := agui.Finding{Event: args[0].Int(), Pointer: args[1].String(), Rule: args[2].String(), Message: args[3].String()}
		return pagecheck.Reject(f, agui.Options{Profile: args[4].String(), Source: args[5].String()})
	}))
	js.Global().Call("aguiCheckerReady", api)
	select {}
}

// gcPercent lets the heap grow to five times what is live before a
// collection, instead of Go's default of twice.
const gcPercent = 400

// fn wraps a call of package pagecheck as a JavaScript function returning
// a plain object. A panic in the checker would be a bug; it is answered as
// an error rather than ending the program, which would leave the page
// without a checker.
func fn(call func(args []js.Value) pagecheck.Answer) js.Func {
	return js.FuncOf(func(this js.Value, args []js.Value) (out any) {
		defer func() {
			if p := recover(); p != nil {
				out = toJS(pagecheck.Answer{Error: "the checker failed (a bug): " + fmt.Sprint(p)})
			}
		}()
		return toJS(call(args))
	})
}

func toJS(a pagecheck.Answer) js.Value {
	o := js.Global().Get("Object").New()
	o.Set("error", a.Error)
	o.Set("json", string(a.JSON))
	o.Set("form", a.Form)
	o.Set("view", string(a.View))
	o.Set("accepted", a.Accepted)
	return o
}
