// Package layering holds the test that keeps the module's imports running
// one way: the public runtime at the bottom, then the generated packages,
// then the libraries under internal/, then the runtimes built on them
// (designer, then bridge, ide and agui), and the commands, benchmarks and
// the scripts' tools on top. Packages split into parts (ide/metadata) keep
// their parts below them, and a part never imports its package. It has no
// code of its own.
package layering
