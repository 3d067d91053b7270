// Package changelog writes release notes from a contract comparison: what
// a new version of a domain adds, changes, deprecates and removes, the
// limits it moves, and its breaking changes with the migration their
// dispositions give, grouped by audience — one section per party of the
// protocol (client authors, server authors) — in English or Russian.
//
// The notes are built from the findings of package contractdiff and the
// spec's own bilingual texts (titles and descriptions of what changed);
// the sentences around them are this package's, in both languages. A
// disposition's migration text is written by a person in one language and
// is quoted as written.
//
// An entry appears under every party it concerns. A breaking or changed
// value asks one party to act: a narrowing the party that sends the value
// (it must send less), a widening the party that receives it (it must
// accept more). Everything else concerns both ends: an addition (one end
// may use it, the other must know it), a removal (one end must stop
// sending it, the other do without), a limit, a deprecation, and a change
// that goes no single way.
package changelog

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/contractkit/contractkit/internal/contractdiff"
	"github.com/contractkit/contractkit/internal/spec"
)

// Languages the notes are written in.
const (
	EN = "en"
	RU = "ru"
)

// Domain is one domain's comparison, as the notes tell it.
type Domain struct {
	// Base and Cur are the domain at the baseline and now; Base is nil
	// for a domain new since the baseline.
	Base, Cur *spec.Domain
	Findings  []contractdiff.Finding
	// Migration maps a change id to the migration text of the
	// disposition that accepts it.
	Migration map[string]string
}

// Write writes the notes of every domain, in lang (EN or RU).
func Write(w io.Writer, doms []Domain, lang string) error {
	if lang != EN && lang != RU {
		return fmt.Errorf("changelog: unknown language %q: use en or ru", lang)
	}
	var b strings.Builder
	for i, d := range doms {
		if i > 0 {
			b.WriteString("\n")
		}
		writeDomain(&b, d, lang)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Section is a part of a party's notes, in the order they are written.
type Section int

const (
	Breaking Section = iota
	New
	Limits
	Changed
	Deprecated
	Removed
	skip
)

var sectionTitles = map[Section]spec.Text{
	Breaking:   {EN: "Breaking changes", RU: "Ломающие изменения"},
	New:        {EN: "New", RU: "Новое"},
	Limits:     {EN: "Limits", RU: "Пределы"},
	Changed:    {EN: "Changed", RU: "Изменено"},
	Deprecated: {EN: "Deprecated", RU: "Устарело"},
	Removed:    {EN: "Removed", RU: "Удалено"},
}

// words are the sentences around the spec's texts.
var words = map[string]spec.Text{
	"since":     {EN: "Changes since %s.", RU: "Изменения с версии %s."},
	"new":       {EN: "New domain: there is no earlier version to compare with.", RU: "Новый домен: сравнивать не с чем."},
	"for":       {EN: "For the %s end (%s)", RU: "Для стороны %s (%s)"},
	"nothing":   {EN: "Nothing changes for this end.", RU: "Для этой стороны ничего не меняется."},
	"migration": {EN: "Migration: %s", RU: "Переход: %s"},
	"accepted":  {EN: "accepted by a disposition", RU: "принято решением"},
	"none":      {EN: "no disposition yet", RU: "решения пока нет"},
}

func say(key, lang string, args ...any) string {
	return fmt.Sprintf(words[key].Get(lang), args...)
}

// entry is one line of the notes.
type entry struct {
	section Section
	sortKey string
	text    string
	// client and server say which parties the entry asks to act.
	client, server bool
}

func writeDomain(b *strings.Builder, d Domain, lang string) {
	h := d.Cur.Header
	fmt.Fprintf(b, "## %s %s\n\n", h.Title.Get(lang), h.Version)
	if d.Base == nil {
		b.WriteString(say("new", lang) + "\n")
		return
	}
	b.WriteString(say("since", lang, d.Base.Header.Version) + "\n")
	var entries []entry
	for _, f := range d.Findings {
		if e, ok := makeEntry(d, f, lang); ok {
			entries = append(entries, e)
		}
	}
	sort.SliceStable(entries, func(i, j int) bool {
		if entries[i].section != entries[j].section {
			return entries[i].section < entries[j].section
		}
		return entries[i].sortKey < entries[j].sortKey
	})
	for _, p := range d.Cur.Parties() {
		fmt.Fprintf(b, "\n### %s\n", say("for", lang, p.Name, p.Title.Get(lang)))
		client := p.End == spec.ClientEnd
		last, wrote := Section(-1), false
		for _, e := range entries {
			if (client && !e.client) || (!client && !e.server) {
				continue
			}
			if e.section != last {
				fmt.Fprintf(b, "\n#### %s\n\n", sectionTitles[e.section].Get(lang))
				last = e.section
			}
			b.WriteString("- " + e.text + "\n")
			wrote = true
		}
		if !wrote {
			b.WriteString("\n" + say("nothing", lang) + "\n")
		}
	}
}

// makeEntry turns a finding into a line of the notes, or reports that the
// notes leave it out (texts, examples, version bookkeeping).
func makeEntry(d Domain, f contractdiff.Finding, lang string) (entry, bool) {
	sec := sectionOf(d, f)
	if sec == skip {
		return entry{}, false
	}
	r := contractdiff.LookupRule(f.Rule)
	if r == nil {
		return entry{}, false
	}
	var t strings.Builder
	fmt.Fprintf(&t, "**%s**: %s", r.Title.Get(lang), label(d, f.Target, lang))
	if text := specText(d, f.Target, lang); text != "" {
		t.WriteString(" — " + strings.TrimSuffix(text, "."))
	}
	if f.Before != "" && f.After != "" && len(f.Before)+len(f.After) < 80 {
		fmt.Fprintf(&t, " (`%s` → `%s`)", f.Before, f.After)
	}
	t.WriteString(".")
	if sec == Breaking {
		if m := d.Migration[f.ChangeID()]; m != "" {
			t.WriteString(" " + say("migration", lang, m))
		} else if f.Blocking() {
			t.WriteString(" (" + say("none", lang) + ")")
		}
	}
	client, server := true, true
	if sec == Breaking || sec == Changed {
		client, server = audience(f)
	}
	return entry{section: sec, sortKey: f.Target + " " + f.Rule, text: t.String(), client: client, server: server}, true
}

// sectionOf places a finding in the notes.
func sectionOf(d Domain, f contractdiff.Finding) Section {
	switch {
	case f.Severity == contractdiff.Breaking:
		return Breaking
	case f.Rule == contractdiff.RuleStabilityChanged && f.After == `"deprecated"`:
		return Deprecated
	case f.Severity == contractdiff.Policy || f.Severity == contractdiff.Documentation,
		f.Rule == contractdiff.RuleTranslationStale:
		return skip
	case strings.HasSuffix(f.Target, "/value") && d.Cur.LookupConstant(strings.TrimSuffix(f.Target, "/value")) != nil:
		return Limits
	case f.Way() == contractdiff.WayRemoval:
		return Removed
	case f.Before == "" && f.After != "":
		return New
	}
	return Changed
}

// audience says which ends an entry asks to act (see the package doc).
func audience(f contractdiff.Finding) (client, server bool) {
	var senderClient, senderServer bool
	switch f.Direction {
	case "client-sent":
		senderClient = true
	case "server-sent":
		senderServer = true
	default:
		return true, true
	}
	switch f.Way() {
	case contractdiff.WayNarrowing:
		return senderClient, senderServer
	case contractdiff.WayWidening:
		return senderServer, senderClient
	}
	return true, true
}

// label names what a target points at, in words: "method `get`", "field
// `GetParams.name`", "value `red` of `Color`".
func label(d Domain, target, lang string) string {
	id, rest, _ := strings.Cut(target, "/")
	parts := strings.Split(rest, "/")
	if t := lookupType(d, id); t != nil {
		if len(parts) >= 2 {
			noun := map[string]spec.Text{
				"fields":       {EN: "field `%s.%s`", RU: "поле `%s.%s`"},
				"values":       {EN: "value `%[2]s` of `%[1]s`", RU: "значение `%[2]s` типа `%[1]s`"},
				"variants":     {EN: "variant `%[2]s` of `%[1]s`", RU: "вариант `%[2]s` типа `%[1]s`"},
				"alternatives": {EN: "alternative `%[2]s` of `%[1]s`", RU: "вариант `%[2]s` типа `%[1]s`"},
			}[parts[0]]
			if noun.EN != "" {
				return fmt.Sprintf(noun.Get(lang), t.Name, unescape(parts[1]))
			}
		}
		return fmt.Sprintf(spec.Text{EN: "type `%s`", RU: "тип `%s`"}.Get(lang), t.Name)
	}
	if e := lookupEntry(d, id); e != nil {
		name := e.ID
		switch {
		case e.Method != nil:
			name = e.Method.Method
		case e.Notification != nil:
			name = e.Notification.Method
		case e.Event != nil:
			name = e.Event.Name
		case e.ErrorKind != nil:
			name = e.ErrorKind.Kind
		case e.Capability != nil:
			name = e.Capability.Name
		case e.Profile != nil:
			name = e.Profile.Name
			if len(parts) >= 2 && parts[0] == "rules" {
				return fmt.Sprintf(spec.Text{EN: "rule `%s` of profile `%s`", RU: "правило `%s` профиля `%s`"}.Get(lang), unescape(parts[1]), name)
			}
		}
		return fmt.Sprintf("%s `%s`", kindNoun(e.Kind).Get(lang), name)
	}
	return "`" + target + "`"
}

func kindNoun(kind string) spec.Text {
	switch kind {
	case spec.KindMethod:
		return spec.Text{EN: "method", RU: "метод"}
	case spec.KindNotification:
		return spec.Text{EN: "notification", RU: "уведомление"}
	case spec.KindEvent:
		return spec.Text{EN: "event", RU: "событие"}
	case spec.KindError:
		return spec.Text{EN: "error", RU: "ошибка"}
	case spec.KindErrorKind:
		return spec.Text{EN: "error kind", RU: "вид ошибки"}
	case spec.KindCapability:
		return spec.Text{EN: "capability", RU: "возможность"}
	case spec.KindProfile:
		return spec.Text{EN: "profile", RU: "профиль"}
	case string(spec.LimitConstant):
		return spec.Text{EN: "limit", RU: "предел"}
	case string(spec.DefaultConstant):
		return spec.Text{EN: "default", RU: "значение по умолчанию"}
	case string(spec.ProtocolConstant):
		return spec.Text{EN: "protocol constant", RU: "константа протокола"}
	}
	return spec.Text{EN: "rule", RU: "правило"}
}

// specText is the spec's own words about what a target points at, from
// the current spec, or the baseline's for what was removed.
func specText(d Domain, target, lang string) string {
	id, rest, _ := strings.Cut(target, "/")
	parts := strings.Split(rest, "/")
	for _, dom := range []*spec.Domain{d.Cur, d.Base} {
		if dom == nil {
			continue
		}
		if t := typeByID(dom, id); t != nil {
			if len(parts) >= 2 {
				key := unescape(parts[1])
				switch parts[0] {
				case "fields":
					for _, f := range t.Fields {
						if f.Name == key {
							return f.Description.Get(lang)
						}
					}
				case "values":
					for _, v := range t.Values {
						if v.String() == key {
							return v.Description.Get(lang)
						}
					}
				case "variants":
					for _, v := range t.Variants {
						if v.Tag == key {
							return v.Description.Get(lang)
						}
					}
				}
				continue
			}
			return t.Title.Get(lang)
		}
		if len(parts) >= 2 && parts[0] == "rules" {
			if r := dom.LookupRule(unescape(parts[1])); r != nil {
				return r.Title.Get(lang)
			}
		}
		for _, e := range dom.Entries() {
			if e.ID == id {
				return e.Title.Get(lang)
			}
		}
	}
	return ""
}

func lookupType(d Domain, id string) *spec.Type {
	if t := typeByID(d.Cur, id); t != nil {
		return t
	}
	if d.Base != nil {
		return typeByID(d.Base, id)
	}
	return nil
}

func lookupEntry(d Domain, id string) *spec.EntryRef {
	for _, dom := range []*spec.Domain{d.Cur, d.Base} {
		if dom == nil {
			continue
		}
		for _, e := range dom.Entries() {
			if e.ID == id {
				return e
			}
		}
	}
	return nil
}

// unescape undoes the escaping of a target path segment.
func unescape(s string) string {
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
}

func typeByID(d *spec.Domain, id string) *spec.Type {
	for _, t := range d.Types {
		if t.ID == id {
			return t
		}
	}
	return nil
}
