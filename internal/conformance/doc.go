// Package conformance holds the tests that hold every generated contract
// to its spec: each example of each spec runs through the generated Go
// decoder and the generated JSON Schema, which must give the same verdict,
// and valid values survive a round trip through the generated encoders.
package conformance
