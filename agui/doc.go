// Package agui checks recorded AG-UI event streams without a live agent.
//
// A record is a local file of AG-UI events: one JSON array of events, or
// one event per line. Check reads it under a profile — the limited local
// stand of revision 4.47.5 ("stand") or the public AG-UI 1.1 event set
// ("ag-ui-1.1") — and returns a Result: whether the record is accepted,
// the first finding that rejects it (event index, JSON pointer and rule
// id), the warnings AG-UI 1.1 tolerance produced, and what the record would
// show a user: messages, tool-call proposals, steps, the final state and
// the declared outcome. The Result renders as text or JSON within a fixed
// output bound.
//
// Every limit, event name, rule id and profile comes from the generated
// contract package generated/agui, which is generated from
// spec/ag-ui-profile.json; this package declares none of them itself.
//
// The package never runs a tool, fetches a URL, opens a network connection
// or decides an interrupt: it reads data and reports on it. It reads no
// credential and gives a record no identity: there is no agent to
// authorise, and a recording carries no proof of one.
package agui
