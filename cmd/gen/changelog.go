package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/contractkit/contractkit/internal/config"
	"github.com/contractkit/contractkit/internal/contractdiff"
	"github.com/contractkit/contractkit/internal/contractdiff/baseline"
	"github.com/contractkit/contractkit/internal/contractdiff/changelog"
	"github.com/contractkit/contractkit/internal/contractdiff/disposition"
	"github.com/contractkit/contractkit/internal/spec"
	specfiles "github.com/contractkit/contractkit/spec"
)

// appendChangelogs is gen --changelog-since REF: for every domain whose
// version differs from its version at the git revision REF, it appends
// the release notes of the change, in English and Russian, to the
// domain's files in changelog/ (see package changelog), with the
// migration of each breaking change's disposition. A domain whose
// version is unchanged, or whose notes of this version are there
// already, is left alone.
func appendChangelogs(root, since string, stdout io.Writer) error {
	fsys := os.DirFS(root)
	cfg, err := config.Load(fsys)
	if err != nil {
		return err
	}
	cd := cfg.Diff()
	meta, err := config.Asset(fsys, specfiles.MetaSchema, "/metaSchema", cfg.MetaSchema)
	if err != nil {
		return err
	}
	specFiles, err := cfg.SpecFiles(config.FileName, fsys)
	if err != nil {
		return err
	}
	paths := make([]string, len(specFiles))
	for i, f := range specFiles {
		paths[i] = f.Path
	}
	cur, diags := spec.LoadFilesWith(fsys, paths, spec.LoadOptions{SkipDigest: true, SkipSources: true, MetaSchema: meta})
	if diags.HasErrors() {
		return fmt.Errorf("the specs are invalid: %s", diags.Errors().Error())
	}
	layout := baseline.Layout{Lists: cfg.SpecFolders(), IsSpec: cfg.IsSpec, MetaSchema: cfg.MetaSchema, Dispositions: cd.Dispositions}
	base, err := baseline.FromGitIn(layout, root, since, meta, true, cur.Domains...)
	if err != nil {
		return err
	}
	migration := map[string]string{}
	if data, err := fs.ReadFile(fsys, cd.Dispositions); err == nil {
		schemaData, err := config.Asset(fsys, specfiles.DispositionsSchema, "/contractdiff/dispositionsSchema", cd.DispositionsSchema)
		if err != nil {
			return err
		}
		schema, err := disposition.CompileSchema(schemaData)
		if err != nil {
			return err
		}
		f, err := disposition.Parse(cd.Dispositions, data, schema)
		if err != nil {
			return err
		}
		for _, e := range f.Entries {
			migration[e.ChangeID] = e.Migration
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
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
