// Package apicheck holds the tests that run scripts/apicheck.sh in make
// test: the public runtime packages (runtime/genrt, runtime/strictjson)
// that generated code imports keep their exported API compatible with the
// merge-base, as the toolchain holds contracts to their peers. It has no
// code of its own.
package apicheck
