// Package spec carries the format schemas of this folder into the
// commands, so that gen and contractdiff work in a repository that has
// none of these files: the meta-schema of the spec format, and the
// schemas of the dispositions and the severity policy contractdiff reads.
// A repository's own copy is read only where its contractkit.json names
// one as an override.
//
// The package exists for the commands of this module; its API is not
// covered by the compatibility promise of runtime/.
package spec

import _ "embed"

// MetaSchema is contract.schema.json: the format of every spec.
//
//go:embed contract.schema.json
var MetaSchema []byte

// DispositionsSchema is dispositions.schema.json: the format of the
// contract change dispositions file.
//
//go:embed dispositions.schema.json
var DispositionsSchema []byte

// PolicySchema is contract-diff-policy.schema.json: the format of the
// contractdiff severity policy.
//
//go:embed contract-diff-policy.schema.json
var PolicySchema []byte
