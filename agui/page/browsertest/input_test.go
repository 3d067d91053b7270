package browsertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// outcome is what window.aguiStand.check answered, or what it threw.
type outcome struct {
	Accepted bool
	Rule     string
	Event    int
	Pointer  string
	Message  string
	State    string // the final state, compact
	Thrown   string
}

// checkJS runs setup (statements that define value and may set options)
// and checks value in the page. The result is read from its exact JSON
// text, so that what the test reads does not depend on the page's
// built-ins, which TestInputBoundary changes.
func checkJS(tb *tab, setup string) outcome {
	tb.t.Helper()
	raw := eval[map[string]any](tb, fmt.Sprintf(`(() => {
  let options;
  %s
  try {
    const r = aguiStand.check(value, options);
    return {accepted: r.accepted, json: r.json};
  } catch (e) {
    return {thrown: "" + e};
  }
})()`, setup))
	if th, ok := raw["thrown"].(string); ok {
		return outcome{Thrown: th}
	}
	var res struct {
		Result   *json.RawMessage `json:"result"`
		Findings []struct {
			Event   int
			Pointer string
			Rule    string
			Message string
		} `json:"findings"`
		State json.RawMessage `json:"state"`
	}
	text := raw["json"].(string)
	if err := json.Unmarshal([]byte(text), &res); err != nil {
		tb.t.Fatalf("the result is not JSON: %v\n%s", err, text)
	}
	if res.Result != nil {
		if err := json.Unmarshal(*res.Result, &res); err != nil {
			tb.t.Fatal(err)
		}
	}
	o := outcome{Accepted: raw["accepted"].(bool)}
	if len(res.Findings) > 0 {
		f := res.Findings[0]
		o.Rule, o.Event, o.Pointer, o.Message = f.Rule, f.Event, f.Pointer, f.Message
	}
	var b bytes.Buffer
	if json.Compact(&b, res.State) == nil {
		o.State = b.String()
	}
	return o
}

// refused checks that the value is rejected by rule at event and pointer.
func refused(t *testing.T, tb *tab, name, setup, rule string, event int, pointer string) outcome {
	t.Helper()
	o := checkJS(tb, setup)
	if o.Thrown != "" || o.Accepted || o.Rule != rule || o.Event != event || o.Pointer != pointer {
		t.Errorf("%s: %+v, want rejected by %s at event %d pointer %q", name, o, rule, event, pointer)
	}
	return o
}

func accepted(t *testing.T, tb *tab, name, setup, state string) {
	t.Helper()
	o := checkJS(tb, setup)
	if o.Thrown != "" || !o.Accepted || (state != "" && o.State != state) {
		t.Errorf("%s: %+v, want accepted with state %s", name, o, state)
	}
}

// snapshot builds a record whose state snapshot is the JavaScript
// expression s.
func snapshot(s string) string {
	return `const value = [{type: "RUN_STARTED", threadId: "t", runId: "r"}, {type: "STATE_SNAPSHOT", snapshot: ` + s + `}];`
}

//contract:proves ag-ui.stand.js-prototypes
func TestInputPrototypes(t *testing.T) {
	tb := openTab(t)
	accepted(t, tb, "plain object", snapshot(`{a: 1, b: [true, null, "x"]}`), `{"a":1,"b":[true,null,"x"]}`)
	accepted(t, tb, "null prototype", `const o = Object.create(null); o.k = "v"; `+snapshot(`o`), `{"k":"v"}`)
	for name, expr := range map[string]string{
		"class instance": `new (class Point { constructor() { this.x = 1; } })()`,
		"date":           `new Date(0)`,
		"map":            `new Map([["a", 1]])`,
		"typed array":    `new Uint8Array(2)`,
		"inheriting":     `Object.create({inherited: 1})`,
		"boxed string":   `new String("s")`,
	} {
		refused(t, tb, name, snapshot(`{v: `+expr+`}`), contract.RuleStandJsPrototypes, 1, "/snapshot/v")
	}
	// Objects and arrays of another realm are refused, not trusted.
	realm := `const f = document.createElement("iframe"); document.body.append(f); const W = f.contentWindow;`
	refused(t, tb, "object of another realm", realm+snapshot(`{v: new W.Object()}`), contract.RuleStandJsPrototypes, 1, "/snapshot/v")
	refused(t, tb, "array of another realm", realm+snapshot(`{v: new W.Array(1, 2)}`), contract.RuleStandJsPrototypes, 1, "/snapshot/v")
	refused(t, tb, "events of another realm", realm+`const value = new W.Array();`, contract.RuleStandJsPrototypes, -1, "")
}

//contract:proves ag-ui.stand.js-arrays
func TestInputArrays(t *testing.T) {
	tb := openTab(t)
	accepted(t, tb, "dense", snapshot(`{list: [1, 2, 3]}`), `{"list":[1,2,3]}`)
	refused(t, tb, "hole", snapshot(`{list: [1, , 3]}`), contract.RuleStandJsArrays, 1, "/snapshot/list/1")
	refused(t, tb, "trailing hole", `const l = [1]; l.length = 3; `+snapshot(`{list: l}`), contract.RuleStandJsArrays, 1, "/snapshot/list/1")
	refused(t, tb, "extra property", `const l = [1, 2]; l.extra = 1; `+snapshot(`{list: l}`), contract.RuleStandJsArrays, 1, "/snapshot/list")
	refused(t, tb, "hole among events", `const value = [{type: "RUN_STARTED", threadId: "t", runId: "r"}, , {type: "RUN_FINISHED", threadId: "t", runId: "r"}];`, contract.RuleStandJsArrays, 1, "")
	refused(t, tb, "extra property of the events", `const value = [{type: "RUN_STARTED", threadId: "t", runId: "r"}]; value.note = "x";`, contract.RuleStandJsArrays, -1, "")
}

//contract:proves ag-ui.stand.js-properties
func TestInputProperties(t *testing.T) {
	tb := openTab(t)
	// A getter is never called: it would record that it ran.
	o := refused(t, tb, "getter", `window.__getterRan = false; const o = {}; Object.defineProperty(o, "k", {get() { window.__getterRan = true; return 1; }, enumerable: true}); `+snapshot(`o`),
		contract.RuleStandJsProperties, 1, "/snapshot/k")
	if ran := eval[bool](tb, `window.__getterRan`); ran {
		t.Error("the getter of a property was called")
	}
	if !strings.Contains(o.Message, "never called") {
		t.Errorf("getter: %q", o.Message)
	}
	refused(t, tb, "setter only", `window.__setterRan = false; const o = {}; Object.defineProperty(o, "k", {set(v) { window.__setterRan = true; }, enumerable: true}); `+snapshot(`o`),
		contract.RuleStandJsProperties, 1, "/snapshot/k")
	refused(t, tb, "getter of an element", `window.__getterRan = false; const l = [1]; Object.defineProperty(l, "0", {get() { window.__getterRan = true; return 1; }, enumerable: true}); `+snapshot(`{l}`),
		contract.RuleStandJsProperties, 1, "/snapshot/l/0")
	refused(t, tb, "getter of an event", `window.__getterRan = false; const value = []; Object.defineProperty(value, "0", {get() { window.__getterRan = true; return {}; }, enumerable: true});`,
		contract.RuleStandJsProperties, 0, "")
	if ran := eval[bool](tb, `window.__getterRan || window.__setterRan`); ran {
		t.Error("a getter or setter of the input was called")
	}
	refused(t, tb, "non-enumerable", `const o = {a: 1}; Object.defineProperty(o, "hidden", {value: 2, enumerable: false}); `+snapshot(`o`),
		contract.RuleStandJsProperties, 1, "/snapshot/hidden")
	refused(t, tb, "symbol key", `const o = {a: 1}; o[Symbol("s")] = 2; `+snapshot(`o`), contract.RuleStandJsProperties, 1, "/snapshot")
	refused(t, tb, "symbol key on an array", `const l = [1]; l[Symbol.iterator] = null; `+snapshot(`{l}`), contract.RuleStandJsProperties, 1, "/snapshot/l")
	// Options are read the same way.
	o = checkJS(tb, `window.__getterRan = false; const value = [{type: "RUN_STARTED", threadId: "t", runId: "r"}]; options = {}; Object.defineProperty(options, "profile", {get() { window.__getterRan = true; return "stand"; }});`)
	if o.Thrown == "" || eval[bool](tb, `window.__getterRan`) {
		t.Errorf("an accessor in the options: %+v", o)
	}
}

//contract:proves ag-ui.stand.js-cycles
func TestInputCycles(t *testing.T) {
	tb := openTab(t)
	refused(t, tb, "object cycle", `const o = {a: {}}; o.a.back = o; `+snapshot(`o`), contract.RuleStandJsCycles, 1, "/snapshot/a/back")
	refused(t, tb, "array cycle", `const l = [1]; l.push(l); `+snapshot(`{l}`), contract.RuleStandJsCycles, 1, "/snapshot/l/1")
	refused(t, tb, "event holding the events", `const value = [{type: "RUN_STARTED", threadId: "t", runId: "r"}]; value.push({type: "STATE_SNAPSHOT", snapshot: {all: value}});`,
		contract.RuleStandJsCycles, 1, "/snapshot/all")
	// Shared references without a cycle, and frozen data, are copied.
	accepted(t, tb, "shared references", `const s = Object.freeze({k: Object.freeze([1])}); `+snapshot(`Object.freeze({a: s, b: s})`), `{"a":{"k":[1]},"b":{"k":[1]}}`)
	// The copy is taken once: a change after the check does not reach its
	// result, and the caller's value is not changed by the check.
	o := checkJS(tb, `const s = {n: 1}; const value = [{type: "RUN_STARTED", threadId: "t", runId: "r"}, {type: "STATE_SNAPSHOT", snapshot: s}];
		window.__kept = s;`)
	after := eval[string](tb, `window.__kept.n = 2, JSON.stringify(window.__kept)`)
	if !o.Accepted || o.State != `{"n":1}` || after != `{"n":2}` {
		t.Errorf("copy: %+v, then %s", o, after)
	}
}

//contract:proves ag-ui.stand.js-values
func TestInputValues(t *testing.T) {
	tb := openTab(t)
	for name, expr := range map[string]string{
		"function":  `() => 1`,
		"undefined": `undefined`,
		"symbol":    `Symbol("s")`,
		"bigint":    `10n`,
		"NaN":       `NaN`,
		"infinity":  `-Infinity`,
	} {
		refused(t, tb, name, snapshot(`{v: `+expr+`}`), contract.RuleStandJsValues, 1, "/snapshot/v")
	}
	// As in a file: the profile's number and string rules.
	refused(t, tb, "negative zero", snapshot(`{v: -0}`), contract.RuleReaderNegativeZero, 1, "/snapshot/v")
	refused(t, tb, "unsafe integer", snapshot(`{v: 2 ** 53}`), contract.RuleReaderIntegerRange, 1, "/snapshot/v")
	refused(t, tb, "lone surrogate", snapshot(`{v: "a\uD800"}`), contract.RuleReaderUnpairedSurrogates, 1, "/snapshot/v")
	refused(t, tb, "lone surrogate in a name", snapshot(`{"\uDC00": 1}`), contract.RuleReaderUnpairedSurrogates, 1, "/snapshot")
	accepted(t, tb, "well-formed pair and fraction", snapshot(`{v: "\uD83D\uDE00", f: 0.1}`), `{"f":0.1,"v":"😀"}`)
	// Limits are counted before anything is copied: nesting at the limit
	// and one past it, and a value that shares itself 4^10 times.
	depth := contract.LimitDepth
	// The event is level 1 and its snapshot level 2, as in a file.
	// The event is level 1, its snapshot level 2 and d level 3, as in a file.
	accepted(t, tb, "nesting at the limit", fmt.Sprintf(`let d = 1; for (let i = 0; i < %d; i++) d = [d]; `, depth-2)+snapshot(`{d}`), "")
	refused(t, tb, "nesting past the limit", fmt.Sprintf(`let d = 1; for (let i = 0; i < %d; i++) d = [d]; `, depth-1)+snapshot(`{d}`),
		contract.RuleReaderDepth, 1, "/snapshot/d"+strings.Repeat("/0", depth-2))
	if o := checkJS(tb, `let d = [0]; for (let i = 0; i < 10; i++) d = [d, d, d, d]; `+snapshot(`{d}`)); o.Accepted || o.Rule != contract.RuleReaderValues || o.Event != 1 {
		t.Errorf("a value shared 4^10 times: %+v", o)
	}
	// Not a record at all.
	o := checkJS(tb, `const value = {type: "RUN_STARTED"};`)
	if o.Accepted || o.Rule != contract.RuleReaderRecordShape {
		t.Errorf("an object instead of an array of events: %+v", o)
	}
}

//contract:proves ag-ui.stand.js-boundary
func TestInputBoundary(t *testing.T) {
	tb := openTab(t)
	// The page's help states the boundary, in the interface's language.
	tb.do(clickHelp())
	help := tb.text("#help-body")
	if !strings.Contains(help, ruleRequirement(t, contract.RuleStandJsBoundary, "ru")) {
		t.Errorf("the help does not state the boundary of the programmatic input:\n%.600s", help)
	}
	// A proxy is not isolated: its traps run while the value is read. What
	// they report is copied once and checked; its get trap, which a plain
	// property read would reach, is never used.
	o := checkJS(tb, `window.__traps = [];
		const target = {a: 1};
		const p = new Proxy(target, {
			ownKeys(t) { window.__traps.push("ownKeys"); return Reflect.ownKeys(t); },
			getOwnPropertyDescriptor(t, k) { window.__traps.push("descriptor"); return Reflect.getOwnPropertyDescriptor(t, k); },
			get(t, k) { window.__traps.push("get"); return 2; },
		});`+snapshot(`p`))
	traps := eval[[]string](tb, `window.__traps`)
	if !o.Accepted || o.State != `{"a":1}` || !strings.Contains(strings.Join(traps, ","), "ownKeys") || strings.Contains(strings.Join(traps, ","), "get") {
		t.Errorf("proxy: %+v, traps %v", o, traps)
	}
	// A trap that throws, and a revoked proxy, are reported with the rule,
	// never passed on to the caller.
	refused(t, tb, "throwing trap", snapshot(`{p: new Proxy({}, {ownKeys() { throw new Error("trap"); }})}`), contract.RuleStandJsBoundary, 1, "/snapshot/p")
	refused(t, tb, "revoked proxy", `const r = Proxy.revocable({}, {}); r.revoke(); `+snapshot(`{p: r.proxy}`), contract.RuleStandJsBoundary, 1, "/snapshot/p")
	// Built-ins changed after the page loaded do not steer the input.
	eval[bool](tb, `(() => {
		Object.getPrototypeOf = () => Object.prototype;
		Reflect.getPrototypeOf = () => Object.prototype;
		Reflect.getOwnPropertyDescriptor = () => ({value: "forged", enumerable: true});
		Reflect.ownKeys = () => [];
		Object.hasOwn = () => true;
		Array.isArray = () => true;
		JSON.stringify = () => '"forged"';
		String.prototype.isWellFormed = () => true;
		Object.defineProperty(Object.prototype, "value", {get() { window.__polluted = true; return "forged"; }, configurable: true});
		Array.prototype.toJSON = () => "forged";
		return true;
	})()`)
	accepted(t, tb, "after changed built-ins", snapshot(`{a: [1, "x"]}`), `{"a":[1,"x"]}`)
	refused(t, tb, "class instance after changed built-ins", snapshot(`{v: new Date(0)}`), contract.RuleStandJsPrototypes, 1, "/snapshot/v")
	refused(t, tb, "getter after changed built-ins", `const o = {}; Object.defineProperty(o, "k", {__proto__: null, get() { window.__polluted = true; }, enumerable: true}); `+snapshot(`o`),
		contract.RuleStandJsProperties, 1, "/snapshot/k")
	refused(t, tb, "lone surrogate after changed built-ins", snapshot(`{v: "\uD800"}`), contract.RuleReaderUnpairedSurrogates, 1, "/snapshot/v")
	if eval[bool](tb, `window.__polluted === true`) {
		t.Error("a changed built-in was used by the input")
	}
}
