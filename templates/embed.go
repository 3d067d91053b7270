// Package templates carries the text/template sources of the reference
// pages into gen, so that it renders documentation in a repository that
// has no templates of its own: <lang>/reference/*.tmpl for the pages of
// each domain, <lang>/contract-diff/*.tmpl for the rule catalog. A
// repository replaces them only by naming its own folder as "templates"
// in contractkit.json.
//
// The package exists for the commands of this module; its API is not
// covered by the compatibility promise of runtime/.
package templates

import "embed"

// FS holds en/ and ru/, laid out as this folder.
//
//go:embed en ru
var FS embed.FS
