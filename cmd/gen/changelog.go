package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/contractkit/contractkit/internal/contractdiff"
	"github.com/contractkit/contractkit/internal/contractdiff/baseline"
	"github.com/contractkit/contractkit/internal/contractdiff/changelog"
	"github.com/contractkit/contractkit/internal/contractdiff/disposition"
	"github.com/contractkit/contractkit/internal/spec"
)

// appendChangelogs is gen --changelog-since REF: for every domain whose
// version differs from its version at the git revision REF, it appends
// the release notes of the change, in English and Russian, to the
// domain's files in changelog/ (see package changelog), with the
// migration of each breaking change's disposition. A domain whose
// version is unchanged, or whose notes of this version are there
// already, is left alone.
func appendChangelogs(root, since string, stdout io.Writer) error {
	meta, err := os.ReadFile(filepath.Join(root, spec.MetaSchemaPath))
	if err != nil {
		return err
	}
	cur, diags := spec.LoadWith(os.DirFS(root), spec.LoadOptions{SkipDigest: true, SkipSources: true})
	if diags.HasErrors() {
		return fmt.Errorf("the specs are invalid: %s", diags.Errors().Error())
	}
	base, err := baseline.FromGit(root, since, meta, true, cur.Domains...)
	if err != nil {
		return err
	}
	migration := map[string]string{}
	if data, err := os.ReadFile(filepath.Join(root, disposition.FileName)); err == nil {
		schemaData, err := os.ReadFile(filepath.Join(root, disposition.SchemaPath))
		if err != nil {
			return err
		}
		schema, err := disposition.CompileSchema(schemaData)
		if err != nil {
			return err
		}
		f, err := disposition.Parse(disposition.FileName, data, schema)
		if err != nil {
			return err
		}
		for _, e := range f.Entries {
			migration[e.ChangeID] = e.Migration
		}
	}
	byID := map[string]*spec.Domain{}
	for _, d := range base.Domains {
		byID[d.Header.ID] = d
	}
	for _, d := range cur.Domains {
		b := byID[d.Header.ID]
		if b == nil || b.Header.Version == d.Header.Version {
			continue
		}
		dom := changelog.Domain{Base: b, Cur: d, Findings: contractdiff.Compare(b, d), Migration: migration}
		for _, lang := range []string{changelog.EN, changelog.RU} {
			rel := changelog.FilePath(d.Header.ID, lang)
			wrote, err := changelog.AppendRelease(filepath.Join(root, rel), dom, lang)
			if err != nil {
				return err
			}
			if wrote {
				fmt.Fprintf(stdout, "appended the notes of %s %s to %s\n", d.Header.ID, d.Header.Version, rel)
			}
		}
	}
	return nil
}
