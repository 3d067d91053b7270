// Package adoption holds the adoption test of contractkit: a module of its
// own, outside this tree, that uses contractkit as Docs/en/how-to/adopt.md
// tells a new user to, running the commands of that page in their order.
// It has no code of its own.
package adoption
