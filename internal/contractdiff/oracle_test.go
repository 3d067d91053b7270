package contractdiff

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/contractkit/contractkit/internal/emit/schemaemit"
	"github.com/contractkit/contractkit/internal/spec"
)

// The oracle test mutates the specs at random (a field made required or
// optional, nullable or not, removed or added, an enum value removed or
// added, an enum opened or closed, a bound or a limit moved, a type
// changed, unknown members rejected or not) and checks every finding
// about values against two things computed without the comparison:
//
//   - its witness, which both revisions' generated JSON Schemas judge:
//     accepted by the baseline and rejected now is a narrowing, the
//     reverse a widening, accepted by both a change receivers tolerate;
//   - who sends the messages the changed type travels in, read from the
//     generated schemas of every message ($defs) and the spec's
//     directions and parties.
//
// A narrowing must be breaking exactly when a receiver of those messages
// is implemented here, a widening exactly when a sender is, and a
// tolerated change never. A finding about values without a witness fails.
// make test runs a small corpus (12 mutations per spec, 6 under the race
// detector, the specs side by side); make contract-oracle a large one.
var (
	oracleN    = flag.Int("oracle.n", 12, "mutations per spec in TestOracle")
	oracleSeed = flag.Uint64("oracle.seed", 12, "seed of TestOracle's mutations")
)

func TestOracle(t *testing.T) {
	specs := []string{"ag-ui-profile.json", "ide-api.json", "AiControlProtocol.json"}
	perSpec := *oracleN
	if raceEnabled && !flagSet("oracle.n") {
		perSpec = max(1, perSpec/2)
	}
	var agree, findings, mutations, skipped atomic.Int64
	t.Cleanup(func() {
		t.Logf("oracle: %d mutations (%d skipped as invalid), %d findings about values, %d agree with their witness and the schemas' senders and receivers",
			mutations.Load(), skipped.Load(), findings.Load(), agree.Load())
	})
	for i, file := range specs {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			doc := realSpec(t, file)
			nameCountLimits(doc)
			base := parseDoc(t, file, doc)
			o := newOracle(t, base)
			rng := rand.New(rand.NewPCG(*oracleSeed, uint64(i)))
			n := 0
			// Besides the random mutations, the ones the issue-30 review
			// found judged wrong run on every spec: a string member made a
			// closed enum, and every limit a count bound names moved both
			// ways (one finding each, on the limit).
			fixed := targetedMutations(doc)
			for k := 0; k < perSpec+len(fixed); k++ {
				m := cloneDoc(doc)
				var what string
				if k < perSpec {
					what = mutate(rng, m)
				} else {
					what = fixed[k-perSpec](m)
				}
				if what == "" {
					skipped.Add(1)
					continue
				}
				data, _ := json.MarshalIndent(m, "", "  ")
				cur, diags := spec.ParseOne(metaSchemaFS(t), "spec/"+file, data)
				if diags.HasErrors() {
					skipped.Add(1) // the mutation made an invalid spec (a default outside a new bound, say)
					continue
				}
				mutations.Add(1)
				got := Compare(base, cur)
				if k >= perSpec {
					if msg := targetedCheck(what, got); msg != "" {
						t.Errorf("%s: %s", what, msg)
					}
				}
				for _, f := range got {
					if witnessFree[f.Rule] {
						continue
					}
					if msg := missingWitness(f); msg != "" {
						t.Errorf("%s: %s %s %s: %s", what, f.Severity, f.Rule, f.Target, msg)
						continue
					}
					findings.Add(1)
					n++
					if msg := o.check(cur, f); msg != "" {
						t.Errorf("%s: %s %s %s: %s", what, f.Severity, f.Rule, f.Target, msg)
						continue
					}
					agree.Add(1)
				}
			}
			if n == 0 {
				t.Fatal("no mutation changed a value")
			}
		})
	}
}

// witnessFree are the rules whose findings legitimately carry no witness:
// they are not about which values a message may hold, so no message
// accepted by one revision and rejected by the other can show them.
// Every other finding the oracle meets must carry a probe and a witness;
// a value rule that forgot to set one fails TestOracle instead of being
// skipped. TestWitnessFreeRules keeps this list and the catalog in step.
var witnessFree = map[string]bool{
	// Policy: the versioning and lifecycle of the spec, not its values.
	RuleStabilityChanged: true, RuleSinceChanged: true, RuleDomainVersionChanged: true,
	RuleRemovedWithoutDeprecation: true, RuleRemovedNotReserved: true,
	RuleBreakingWithoutMajorBump: true, RulePartiesChanged: true,
	// Documentation: texts and examples.
	RuleTextChanged: true, RuleExamplesChanged: true,
	RuleRequirementChanged: true, RuleTranslationStale: true,
	// Elements of the contract rather than values inside a message: a
	// method, event, error, rule or constant that comes or goes, an id or
	// name, a code, a gate, a direction or a profile.
	RuleDomainRemoved: true, RuleMethodRemoved: true, RuleNotificationRemoved: true,
	RuleEventRemoved: true, RuleErrorRemoved: true, RuleErrorKindRemoved: true,
	RuleCapabilityRemoved: true, RuleRuleRemoved: true, RuleTypeRemoved: true,
	RuleConstantRemoved: true, RuleIDRenamed: true, RuleEntryAdded: true,
	RuleMessageAdded: true, RuleMethodErrorsChanged: true, RuleGoNameChanged: true,
	RuleProtocolConstantChanged: true, RuleErrorCodeChanged: true, RuleWireNameChanged: true,
	RuleDirectionChanged: true, RuleCapabilityGateAdded: true, RuleCapabilityGateRemoved: true,
	RuleStabilityWithdrawn: true, RuleReservedReused: true, RuleReservationRemoved: true,
	RuleProfileRemoved: true, RuleProfileEventRemoved: true, RuleProfileEventAdded: true,
	RuleProfileLimitLowered: true, RuleProfileLimitRaised: true,
	RuleProfileRuleAdded: true, RuleProfileRuleRemoved: true,
	RuleProfileToleranceAdded: true, RuleProfileToleranceRemoved: true,
	// A default is filled in by the receiver: both revisions' schemas
	// accept the same messages.
	RuleDefaultChanged: true,
	// A limit of the implementation alone bounds no message.
	RuleInternalLimitChanged: true,
}

// missingWitness says why a finding about values has no usable witness
// (no probe to build one from, or a probe that found none), or "". The
// limit rules are about values here: the oracle moves only limits that
// bound a value.
func missingWitness(f Finding) string {
	switch {
	case f.Probe.IsZero():
		return "a finding about values without a witness: its rule set no probe"
	case !f.Witness.Found():
		return fmt.Sprintf("no witness for probe %+v", f.Probe)
	}
	return ""
}

// oracle knows which messages carry each type and who sends them, from
// the generated schemas.
type oracle struct {
	t    *testing.T
	base *spec.Domain
	// carried caches, per domain, the ends that send each type name.
	carried map[*spec.Domain]map[string][2]bool
}

func newOracle(t *testing.T, base *spec.Domain) *oracle {
	return &oracle{t: t, base: base, carried: map[*spec.Domain]map[string][2]bool{}}
}

// ends returns who sends the messages that carry the type named name in
// d: for each message, its schema's $defs are the types it carries, and a
// type included by one of them is carried too.
func (o *oracle) ends(d *spec.Domain, name string) (client, server bool) {
	m := o.carried[d]
	if m == nil {
		m = o.senders(d)
		o.carried[d] = m
	}
	e, ok := m[name]
	if !ok {
		return true, true // no message carries it: both ways
	}
	return e[0], e[1]
}

// senders maps every type name a message carries to the ends that send
// such messages.
func (o *oracle) senders(d *spec.Domain) map[string][2]bool {
	type msg struct {
		typ    *spec.Type
		sender string
	}
	var msgs []msg
	for _, m := range d.Methods {
		caller := spec.Sender(m.Direction)
		msgs = append(msgs, msg{m.ParamsType, caller}, msg{m.ResultType, spec.Other(caller)})
	}
	for _, n := range d.Notifications {
		msgs = append(msgs, msg{n.ParamsType, spec.Sender(n.Direction)})
	}
	for _, e := range d.Events {
		msgs = append(msgs, msg{e.PayloadType, spec.Sender(e.Direction)})
	}
	for _, e := range d.Errors {
		// Errors come from the side that answers; unlisted ones from the server.
		senders := map[string]bool{}
		for _, m := range d.Methods {
			for _, id := range m.Errors {
				if id == e.ID {
					senders[spec.Other(spec.Sender(m.Direction))] = true
				}
			}
		}
		if len(senders) == 0 {
			senders[spec.ServerEnd] = true
		}
		for s := range senders {
			msgs = append(msgs, msg{e.DataType, s})
			for _, k := range e.Kinds {
				msgs = append(msgs, msg{k.DetailsType, s})
			}
		}
	}
	for _, c := range d.Capabilities {
		if n := c.Type.Elem().Named; n != nil {
			msgs = append(msgs, msg{n, spec.ServerEnd})
		}
	}
	out := map[string][2]bool{}
	defs := map[*spec.Type][]string{}
	for _, m := range msgs {
		if m.typ == nil {
			continue
		}
		if defs[m.typ] == nil {
			defs[m.typ] = o.carries(d, m.typ)
		}
		for _, name := range defs[m.typ] {
			e := out[name]
			if m.sender == spec.ClientEnd {
				e[0] = true
			} else {
				e[1] = true
			}
			out[name] = e
		}
	}
	return out
}

// carries lists the type names the schema of root holds: its $defs, and
// the types they include.
func (o *oracle) carries(d *spec.Domain, root *spec.Type) []string {
	doc, err := schemaemit.Document(d, root, "mem:///oracle.json")
	if err != nil {
		o.t.Fatal(err)
	}
	var s struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(doc, &s); err != nil {
		o.t.Fatal(err)
	}
	var out []string
	var include func(t *spec.Type)
	include = func(t *spec.Type) {
		for _, n := range t.Include {
			out = append(out, n)
			if inc := d.LookupType(n); inc != nil {
				include(inc)
			}
		}
	}
	for def := range s.Defs {
		out = append(out, def)
		if t := d.LookupType(def); t != nil {
			include(t)
		}
	}
	return out
}

// check returns why a finding with a witness disagrees with the oracle,
// or "".
func (o *oracle) check(cur *spec.Domain, f Finding) string {
	w := f.Witness
	var name string
	for _, d := range []*spec.Domain{cur, o.base} {
		for _, t := range d.Types {
			if t.ID == f.Probe.Type {
				name = t.Name
			}
		}
	}
	client, server := o.ends(cur, name)
	bc, bs := o.ends(o.base, name)
	client, server = client || bc, server || bs
	if f.Probe.Constant != "" {
		// A limit bounds the flow its direction names as well.
		if k := cur.LookupConstant(f.Probe.Constant); k != nil {
			for _, end := range k.Direction.Senders(cur) {
				client = client || end == spec.ClientEnd
				server = server || end == spec.ServerEnd
			}
		}
	}
	cp, sp := cur.PartyAt(spec.ClientEnd), cur.PartyAt(spec.ServerEnd)
	var want bool
	var what string
	if f.Rule == RuleRequestMemberIgnored {
		// Judged by meaning, not by the schemas: both accept the
		// request, and it breaks because the answering party here now
		// ignores what callers send in it.
		if !(w.Baseline && w.Current) {
			return "a request member now ignored whose witness is not accepted by both schemas: " + w.JSON
		}
		if !o.answeredHere(o.base, name) {
			return "request-member-ignored for a type no method answered here carries in its params"
		}
		return ""
	}
	if f.Rule == RuleFieldAdded && w.Baseline && !w.Current {
		// An optional member added to a type that took unknown members:
		// the witness shows a value of the new name that only a sender
		// outside the contract used; decided minor, never breaking.
		return ""
	}
	switch {
	case w.Baseline && w.Current:
		want, what = false, "both schemas accept the witness"
	case w.Baseline:
		// Narrowing: breaks when a receiver is implemented here.
		want = client && sp.Implemented || server && cp.Implemented
		what = "a narrowing"
	case w.Current:
		want = client && cp.Implemented || server && sp.Implemented
		what = "a widening"
	default:
		return "neither schema accepts the witness " + w.JSON
	}
	got := f.Severity == Breaking
	if got != want {
		return fmt.Sprintf("%s (witness %s), sent by client %v, server %v: breaking should be %v", what, w.JSON, client, server, want)
	}
	return ""
}

func cloneDoc(doc map[string]any) map[string]any {
	data, _ := json.Marshal(doc)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return out
}

// mutate makes one random change of values to a spec document and says
// what it did, or returns "" when the spec offered nothing to change.
func mutate(rng *rand.Rand, doc map[string]any) string {
	types := doc["types"].([]any)
	objects, enums := []map[string]any{}, []map[string]any{}
	for _, x := range types {
		t := x.(map[string]any)
		switch t["kind"] {
		case "object":
			if fs, _ := t["fields"].([]any); len(fs) > 0 {
				objects = append(objects, t)
			}
		case "enum":
			enums = append(enums, t)
		}
	}
	pick := func(n int) int { return rng.IntN(n) }
	for attempt := 0; attempt < 20; attempt++ {
		switch pick(10) {
		case 0, 1: // requiredness or nullability of a member
			t := objects[pick(len(objects))]
			fs := t["fields"].([]any)
			f := fs[pick(len(fs))].(map[string]any)
			if f["default"] != nil || inExactlyOneOf(t, f["name"].(string)) {
				continue
			}
			if pick(2) == 0 {
				f["required"] = !(f["required"] == true)
				return fmt.Sprintf("%s.%s required=%v", t["name"], f["name"], f["required"])
			}
			if c, _ := f["constraints"].(map[string]any); c != nil && c["const"] != nil {
				continue
			}
			n, _ := f["nullable"].(bool)
			f["nullable"] = !n
			return fmt.Sprintf("%s.%s nullable=%v", t["name"], f["name"], !n)
		case 2: // a member removed
			t := objects[pick(len(objects))]
			fs := t["fields"].([]any)
			i := pick(len(fs))
			f := fs[i].(map[string]any)
			if f["id"] != nil || inExactlyOneOf(t, f["name"].(string)) {
				continue
			}
			t["fields"] = append(append([]any{}, fs[:i]...), fs[i+1:]...)
			return fmt.Sprintf("%s.%s removed", t["name"], f["name"])
		case 3: // a member added
			t := objects[pick(len(objects))]
			req := pick(2) == 0
			t["fields"] = append(t["fields"].([]any), map[string]any{"name": "oracleAdded", "type": "string", "required": req,
				"description": map[string]any{"en": "Added.", "ru": "Добавлено."}})
			return fmt.Sprintf("%s.oracleAdded added, required=%v", t["name"], req)
		case 4: // an enum value removed or added
			if len(enums) == 0 {
				continue
			}
			e := enums[pick(len(enums))]
			vs := e["values"].([]any)
			if pick(2) == 0 && len(vs) > 1 {
				i := pick(len(vs))
				e["values"] = append(append([]any{}, vs[:i]...), vs[i+1:]...)
				return fmt.Sprintf("%s value %v removed", e["name"], vs[i].(map[string]any)["value"])
			}
			var v any = "oracle-value"
			if e["base"] == "integer" {
				v = 424242
			}
			e["values"] = append(vs, map[string]any{"value": v, "description": map[string]any{"en": "Added.", "ru": "Добавлено."}})
			return fmt.Sprintf("%s value %v added", e["name"], v)
		case 5: // an enum opened or closed
			if len(enums) == 0 {
				continue
			}
			e := enums[pick(len(enums))]
			o, _ := e["open"].(bool)
			e["open"] = !o
			return fmt.Sprintf("%s open=%v", e["name"], !o)
		case 6: // a bound moved
			t := objects[pick(len(objects))]
			fs := t["fields"].([]any)
			f := fs[pick(len(fs))].(map[string]any)
			c, _ := f["constraints"].(map[string]any)
			if c == nil || c["clamp"] == true {
				continue
			}
			keys := []string{}
			for k, v := range c {
				if _, ok := v.(float64); ok && (k == "maxLength" || k == "minLength" || k == "maxItems" || k == "minItems" || k == "maximum" || k == "minimum") {
					keys = append(keys, k)
				}
			}
			if len(keys) == 0 {
				continue
			}
			sort.Strings(keys)
			k := keys[pick(len(keys))]
			d := float64(1 + pick(3))
			if pick(2) == 0 {
				d = -d
			}
			v := c[k].(float64) + d
			if v < 0 {
				continue
			}
			c[k] = v
			return fmt.Sprintf("%s.%s %s %v", t["name"], f["name"], k, v)
		case 7: // a limit a bound names moved
			cs, _ := doc["constants"].([]any)
			var limits []map[string]any
			for _, x := range cs {
				if c := x.(map[string]any); c["kind"] == "limit" && unclampedBound(types, c["id"].(string)) {
					limits = append(limits, c)
				}
			}
			if len(limits) == 0 {
				continue
			}
			c := limits[pick(len(limits))]
			d := float64(1 + pick(5))
			if pick(2) == 0 {
				d = -d
			}
			c["value"] = c["value"].(float64) + d
			return fmt.Sprintf("limit %s value %v", c["id"], c["value"])
		case 8: // a member's builtin type changed, or narrowed or widened
			t := objects[pick(len(objects))]
			fs := t["fields"].([]any)
			f := fs[pick(len(fs))].(map[string]any)
			if f["constraints"] != nil || f["default"] != nil {
				continue
			}
			switch {
			case f["type"] == "string" && pick(2) == 0:
				// string → a closed enum: a narrowing by direction.
				types = append(types, map[string]any{
					"id": strings.SplitN(t["id"].(string), ".type.", 2)[0] + ".type.oracle-enum", "name": "OracleEnum", "kind": "enum", "base": "string",
					"title":       map[string]any{"en": "Oracle enum", "ru": "Перечисление оракула"},
					"description": map[string]any{"en": "Added.", "ru": "Добавлено."},
					"values": []any{
						map[string]any{"value": "oracle-a", "description": map[string]any{"en": "A.", "ru": "А."}},
						map[string]any{"value": "oracle-b", "description": map[string]any{"en": "B.", "ru": "Б."}},
					}})
				doc["types"] = types
				f["type"] = "OracleEnum"
			case f["type"] == "string":
				f["type"] = "integer"
			case f["type"] == "integer" && pick(2) == 0:
				f["type"] = "number" // a widening
			case f["type"] == "number":
				f["type"] = "integer" // a narrowing
			case f["type"] == "integer", f["type"] == "boolean":
				f["type"] = "string"
			default:
				continue
			}
			return fmt.Sprintf("%s.%s type %v", t["name"], f["name"], f["type"])
		case 9: // unknown members rejected or not
			t := objects[pick(len(objects))]
			order := []string{"reject", "ignore", "keep"}
			now, _ := t["additionalFields"].(string)
			next := order[pick(3)]
			if next == now || (next == "keep" && isVariant(types, t["name"].(string))) {
				continue
			}
			t["additionalFields"] = next
			return fmt.Sprintf("%s additionalFields %s", t["name"], next)
		}
	}
	return ""
}

func inExactlyOneOf(t map[string]any, name string) bool {
	xs, _ := t["exactlyOneOf"].([]any)
	for _, x := range xs {
		if x == name {
			return true
		}
	}
	return false
}

// unclampedBound reports whether some constraint bounds a value by the
// constant and rejects what lies beyond it.
func unclampedBound(types []any, id string) bool {
	found := false
	var walk func(v any, clamp bool)
	walk = func(v any, clamp bool) {
		switch x := v.(type) {
		case map[string]any:
			c := clamp || x["clamp"] == true
			for k, e := range x {
				// Counts are never clamped.
				if k == "maxItems" || k == "maxLength" || k == "minItems" || k == "minLength" {
					if m, ok := e.(map[string]any); ok && m["constant"] == id {
						found = true
					}
				}
				if (k == "maximum" || k == "minimum") && !c {
					if m, ok := e.(map[string]any); ok && m["constant"] == id {
						found = true
					}
				}
				walk(e, c)
			}
		case []any:
			for _, e := range x {
				walk(e, false)
			}
		}
	}
	walk(types, false)
	return found
}

// isVariant reports whether an object type is a union variant, which may
// not keep unknown members.
func isVariant(types []any, name string) bool {
	for _, x := range types {
		t := x.(map[string]any)
		vs, _ := t["variants"].([]any)
		for _, v := range vs {
			if v.(map[string]any)["type"] == name {
				return true
			}
		}
	}
	return false
}

// flagSet reports whether a flag was given on the command line.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// answeredHere reports whether the params of a method whose answering
// party is implemented in d carry the type named name.
func (o *oracle) answeredHere(d *spec.Domain, name string) bool {
	for _, m := range d.Methods {
		if m.ParamsType == nil || !d.PartyAt(spec.Other(spec.Sender(m.Direction))).Implemented {
			continue
		}
		for _, n := range o.carries(d, m.ParamsType) {
			if n == name {
				return true
			}
		}
	}
	return false
}

// nameCountLimits makes the first literal maxLength and the first literal
// maxItems of a spec name a new limit constant of the same value, so that
// the mutations that move a limit also move count bounds that name one
// (a count that names a limit is judged once, on the limit). The limits
// bound what a party keeps, so that only the flow of the values they
// bound decides their verdicts.
func nameCountLimits(doc map[string]any) {
	domain := doc["domain"].(map[string]any)
	party := domain["parties"].([]any)[0].(map[string]any)["name"]
	for _, count := range []string{"maxLength", "maxItems"} {
		done := false
		for _, x := range doc["types"].([]any) {
			fs, _ := x.(map[string]any)["fields"].([]any)
			for _, fx := range fs {
				c, _ := fx.(map[string]any)["constraints"].(map[string]any)
				v, ok := c[count].(float64)
				if done || !ok || c["clamp"] == true {
					continue
				}
				id := domain["id"].(string) + ".limit.oracle-" + strings.ToLower(count)
				c[count] = map[string]any{"constant": id}
				doc["constants"] = append(doc["constants"].([]any), map[string]any{
					"id": id, "symbol": "Oracle" + strings.ToUpper(count[:1]) + count[1:], "kind": "limit", "type": "integer", "value": v,
					"direction":   map[string]any{"party": party, "bounds": "keeps"},
					"title":       map[string]any{"en": "Oracle limit", "ru": "Предел оракула"},
					"description": map[string]any{"en": "A count bound named by a limit.", "ru": "Граница счёта, названная пределом."},
					"stability":   "experimental", "since": "1.0"})
				done = true
			}
		}
	}
}

// targetedMutations are mutations every oracle run makes on a spec: each
// string member of a type some message carries made a closed enum (the
// first few), and each limit that a count bound names moved down and up.
func targetedMutations(doc map[string]any) []func(map[string]any) string {
	var out []func(map[string]any) string
	enums := 0
	for ti, x := range doc["types"].([]any) {
		t := x.(map[string]any)
		fs, _ := t["fields"].([]any)
		for fi, fx := range fs {
			f := fx.(map[string]any)
			if enums >= 3 || f["type"] != "string" || f["constraints"] != nil || f["default"] != nil || inExactlyOneOf(t, f["name"].(string)) {
				continue
			}
			enums++
			out = append(out, func(m map[string]any) string {
				mt := m["types"].([]any)[ti].(map[string]any)
				mf := mt["fields"].([]any)[fi].(map[string]any)
				m["types"] = append(m["types"].([]any), map[string]any{
					"id": strings.SplitN(mt["id"].(string), ".type.", 2)[0] + ".type.oracle-enum", "name": "OracleEnum", "kind": "enum", "base": "string",
					"title":       map[string]any{"en": "Oracle enum", "ru": "Перечисление оракула"},
					"description": map[string]any{"en": "Added.", "ru": "Добавлено."},
					"values": []any{
						map[string]any{"value": "oracle-a", "description": map[string]any{"en": "A.", "ru": "А."}},
						map[string]any{"value": "oracle-b", "description": map[string]any{"en": "B.", "ru": "Б."}},
					}})
				mf["type"] = "OracleEnum"
				return fmt.Sprintf("string→enum %s.%s", mt["name"], mf["name"])
			})
		}
	}
	for ci, x := range doc["constants"].([]any) {
		c := x.(map[string]any)
		if c["kind"] != "limit" || !countNamed(doc["types"], c["id"].(string)) {
			continue
		}
		for _, d := range []float64{-1, 1} {
			out = append(out, func(m map[string]any) string {
				mc := m["constants"].([]any)[ci].(map[string]any)
				mc["value"] = mc["value"].(float64) + d
				return fmt.Sprintf("count limit %s value %v", mc["id"], mc["value"])
			})
		}
	}
	return out
}

// targetedCheck checks what a targeted mutation must report: a count
// limit is judged once, on the limit, never again on the count bound.
func targetedCheck(what string, got []Finding) string {
	if !strings.HasPrefix(what, "count limit ") {
		for _, f := range got {
			if strings.HasSuffix(f.Target, "/type") && f.Probe.Want != 0 {
				return ""
			}
		}
		return "no finding about the member's type"
	}
	limits := 0
	for _, f := range got {
		switch f.Rule {
		case RuleItemBoundsNarrowed, RuleMaxLengthLowered, RuleMinLengthRaised, RuleBoundWidened:
			return "the count bound that names the limit is reported too: " + f.Target
		case RuleLimitNarrowed, RuleLimitWidened, RuleCompatibleChange:
			if strings.HasSuffix(f.Target, "/value") {
				limits++
			}
		}
	}
	if limits != 1 {
		return fmt.Sprintf("%d findings on the limit, want 1", limits)
	}
	return ""
}

// countNamed reports whether a count bound names the constant.
func countNamed(types any, id string) bool {
	found := false
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "maxItems" || k == "maxLength" || k == "minItems" || k == "minLength" {
					if m, ok := e.(map[string]any); ok && m["constant"] == id {
						found = true
					}
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(types)
	return found
}
