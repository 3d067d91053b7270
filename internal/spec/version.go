package spec

import "github.com/contractkit/contractkit/runtime/genrt"

// CompareVersions orders dotted versions numerically: "1.4" < "1.10".
// Missing segments count as zero, so "1" == "1.0". It is the same order
// the generated runtimes use.
func CompareVersions(a, b string) int { return genrt.CompareVersions(a, b) }
