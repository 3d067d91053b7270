package contractdiff

import (
	"fmt"
	"sort"

	"github.com/contractkit/contractkit/internal/contractdiff/witness"
	"github.com/contractkit/contractkit/internal/spec"
)

// Severity says how a finding affects peers. Only breaking findings can
// block a change; the others are reported so that a reviewer sees them.
type Severity string

const (
	// Breaking narrows the contract for some peer: a value it sends is
	// rejected, or a value it receives is one it was not promised.
	Breaking Severity = "breaking"
	// Warning does not narrow the contract but may surprise a peer that is
	// less tolerant than the contract asks, or needs a human to review it.
	Warning Severity = "warning"
	// Additive widens what a peer may do, or promises it more.
	Additive Severity = "additive"
	// Policy changes a promise about the contract itself (stability,
	// versions) rather than what goes on the wire.
	Policy Severity = "policy"
	// Documentation changes only human-facing text or examples.
	Documentation Severity = "documentation"
)

// Severities lists the severities from the most to the least serious, the
// order in which reports group findings.
var Severities = []Severity{Breaking, Warning, Additive, Policy, Documentation}

// Rank is the position of s in Severities (0 is the most serious), or
// len(Severities) for an unknown severity.
func (s Severity) Rank() int {
	for i, x := range Severities {
		if x == s {
			return i
		}
	}
	return len(Severities)
}

// Name is the severity's name in words, for people.
func (s Severity) Name() spec.Text { return severityTexts[s][0] }

// Meaning says what a finding of the severity means for peers.
func (s Severity) Meaning() spec.Text { return severityTexts[s][1] }

var severityTexts = map[Severity][2]spec.Text{
	Breaking: {text("breaking", "ломающее"), text(
		"Narrows the contract for some peer: a value it sends is now rejected, or a value it receives is one it was not promised. Blocks unless a disposition accepts it, or the element was internal at the baseline.",
		"Сужает контракт для кого-то из участников: отправляемое им значение теперь отвергается, или получаемое не то, что было обещано. Блокирует, если его не принимает решение или элемент в базовой версии был внутренним.")},
	Warning: {text("warning", "предупреждение"), text(
		"Does not narrow the contract, but may surprise a peer that is less tolerant than the contract asks, or needs a person to review it. Never blocks.",
		"Не сужает контракт, но может застать врасплох участника, менее терпимого, чем требует контракт, или требует проверки человеком. Никогда не блокирует.")},
	Additive: {text("additive", "расширяющее"), text(
		"Widens what peers may do, or promises them more. Never blocks.",
		"Расширяет то, что участникам можно делать, или обещает им больше. Никогда не блокирует.")},
	Policy: {text("policy", "политика"), text(
		"Changes a promise about the contract itself, such as stability or version history, rather than what goes on the wire. Never blocks.",
		"Меняет обещание о самом контракте, например стабильность или историю версий, а не то, что передаётся по проводу. Никогда не блокирует.")},
	Documentation: {text("documentation", "документация"), text(
		"Changes only human-facing text or examples. Never blocks.",
		"Меняет только тексты для людей или примеры. Никогда не блокирует.")},
}

// Rule is one entry of the catalog: a kind of change contractdiff detects,
// with a stable id that findings and dispositions name.
type Rule struct {
	ID       string
	Severity Severity
	// Title is the rule's short name ("method removed").
	Title spec.Text
	// Description says what the change does to peers.
	Description spec.Text
	// Why says why the rule has its severity, and for rules judged by who
	// sends and who accepts, when the same edit is reported otherwise.
	Why spec.Text
	// Trigger says which edit of a spec produces the finding.
	Trigger spec.Text
	Example Example
	// Resolution says how to make the change safely, or when to record a
	// disposition.
	Resolution spec.Text
	// Way is the way the rule always moves the contract when no witness
	// says otherwise: WayRemoval for the rules of removals and renames,
	// WayChange for the rules whose direction depends on the edit.
	Way Way
}

// Example shows one edit that triggers a rule. Before and After are JSON
// fragments of a spec ("" when the element is absent on that side); they
// are language-neutral, so both language versions of the catalog page show
// the same code.
type Example struct {
	Context spec.Text
	Before  string
	After   string
}

// Rules returns the catalog sorted by severity, then id.
func Rules() []*Rule {
	out := make([]*Rule, len(catalog))
	copy(out, catalog)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Severity != b.Severity {
			return a.Severity.Rank() < b.Severity.Rank()
		}
		return a.ID < b.ID
	})
	return out
}

// LookupRule returns the rule with the given id, or nil.
func LookupRule(id string) *Rule { return ruleByID[id] }

var ruleByID = func() map[string]*Rule {
	m := map[string]*Rule{}
	for _, r := range catalog {
		if m[r.ID] != nil {
			panic(fmt.Sprintf("contractdiff: rule %s is in the catalog twice", r.ID))
		}
		m[r.ID] = r
	}
	return m
}()

// severityOf returns the catalog severity of a rule id. Every id the
// comparison emits is a constant of this package with a catalog entry, so
// a miss is a bug here, which the catalog tests catch.
func severityOf(id string) Severity {
	r := ruleByID[id]
	if r == nil {
		panic("contractdiff: rule " + id + " is not in the catalog")
	}
	return r.Severity
}

func text(en, ru string) spec.Text { return spec.Text{EN: en, RU: ru} }

// Way says which way a change moves the contract, for the words people
// read about it: a disposition template asks why a narrowing is
// acceptable to senders, a widening to receivers, a removal to its users.
type Way uint8

const (
	// WayChange is a change that is none of the others (a replaced
	// pattern, a changed code).
	WayChange Way = iota
	// WayNarrowing: fewer values or records are accepted.
	WayNarrowing
	// WayWidening: more values may be sent.
	WayWidening
	// WayRemoval: an element, member or name is gone.
	WayRemoval
)

// Way returns which way the finding moves the contract: a removal by its
// rule, otherwise the way its witness shows, otherwise the way its rule
// always goes.
func (f *Finding) Way() Way {
	var way Way
	if r := LookupRule(f.Rule); r != nil {
		way = r.Way
	}
	if way == WayRemoval {
		return WayRemoval
	}
	switch f.Probe.Want {
	case witness.Narrows:
		return WayNarrowing
	case witness.Widens:
		return WayWidening
	}
	return way
}
