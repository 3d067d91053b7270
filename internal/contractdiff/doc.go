// Package contractdiff compares a contract spec at two revisions and names
// every change by a rule of its catalog.
//
// It compares the typed model of package spec, not generated text, so
// reordering or reformatting a spec changes nothing, and a change is judged
// by who sends the changed value: narrowing what clients send (a new
// required field, a removed enum value, a tighter bound) breaks clients,
// and so does widening what servers send (a field made optional or
// nullable, a new variant, a wider bound); the opposite changes are
// compatible. Directions says who sends each type.
//
// Compare compares one domain; DiffSets matches the domains of two
// revisions by id. Each Finding carries its rule, the rule's Severity, a
// stable Target, the values before and after, and its location in the
// current spec file. Its ChangeID is the fingerprint a disposition names
// (package disposition); Blocking says whether it blocks without one.
//
// Rules lists the catalog: every rule with its id, severity and bilingual
// description, trigger, example and resolution. Package catalogdoc renders
// it into Docs/{en,ru}/reference/contract-diff/.
package contractdiff
