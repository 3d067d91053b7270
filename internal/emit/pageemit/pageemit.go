// Package pageemit renders the catalog of a domain's local page: the JSON
// document the page and its server carry beside the checker, generated
// from the spec so that the page cannot describe a contract other than
// the one its checker was built from.
//
// A domain has a page when it declares the protocol constants PagePath
// and PageCatalog; the catalog is written under SiteDir at the path
// PageCatalog names. It holds the domain's digest, the revision the page
// follows, every profile with its own digest, events, limits and rules,
// the bilingual titles and requirements of every rule (the page's texts
// come from them), and the tutorial record with its sha256.
package pageemit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/contractkit/contractkit/internal/spec"
)

// Symbols of the protocol constants that declare a page.
const (
	PagePathSymbol    = "PagePath"
	PageCatalogSymbol = "PageCatalog"
)

// SiteDir is the folder of the page's files in the repository; the
// catalog is generated into it, the rest is written by hand.
const SiteDir = "agui/page/site"

// TutorialPath is the tutorial record the checker embeds; the catalog
// carries it so that the page can show the record it checks.
const TutorialPath = "agui/tutorial.ndjson"

// File is one generated file.
type File struct {
	Path string
	Data []byte
}

// Catalog is the document the page reads. Its member order is fixed.
type Catalog struct {
	Comment string `json:"comment"`
	Spec    string `json:"spec"`
	// Digest is the domain's model digest, the one generated/<pkg>.Digest
	// holds: the page compares it with the checker's before it checks.
	Digest         string     `json:"digest"`
	Domain         string     `json:"domain"`
	Title          spec.Text  `json:"title"`
	Version        string     `json:"version"`
	Revision       string     `json:"revision"`
	Page           string     `json:"page"`
	Catalog        string     `json:"catalog"`
	DefaultProfile string     `json:"defaultProfile"`
	Profiles       []Profile  `json:"profiles"`
	RuleKinds      []RuleKind `json:"ruleKinds"`
	Rules          []Rule     `json:"rules"`
	Tutorial       Tutorial   `json:"tutorial"`
}

// Profile is one profile as the page offers it.
type Profile struct {
	Name        string    `json:"name"`
	ID          string    `json:"id"`
	Revision    string    `json:"revision,omitempty"`
	Title       spec.Text `json:"title"`
	Description spec.Text `json:"description"`
	// Digest is the sha256 of the profile's canonical form (this object
	// without the digest, sorted keys, no insignificant space).
	Digest string   `json:"digest"`
	Events []string `json:"events"`
	Limits []Limit  `json:"limits"`
	Rules  []string `json:"rules"`
}

// Limit is one limit constant that bounds a profile.
type Limit struct {
	ID     string          `json:"id"`
	Symbol string          `json:"symbol"`
	Value  json.RawMessage `json:"value"`
	Unit   string          `json:"unit,omitempty"`
	Title  spec.Text       `json:"title"`
}

// RuleKind is one rule table, with its bilingual title.
type RuleKind struct {
	Kind  string    `json:"kind"`
	Title spec.Text `json:"title"`
}

// Rule is one rule: its id, the name of its generated constant (which the
// page's JavaScript uses, as Go code uses the constant), and its texts.
type Rule struct {
	ID          string    `json:"id"`
	Symbol      string    `json:"symbol"`
	Kind        string    `json:"kind"`
	Title       spec.Text `json:"title"`
	Requirement spec.Text `json:"requirement"`
}

// Tutorial is the built-in tutorial record.
type Tutorial struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Record string `json:"record"`
}

// Emit returns the catalog of d's page, or nothing when d declares no page.
// fsys is the repository, from which the tutorial record is read.
func Emit(d *spec.Domain, fsys fs.FS) ([]File, error) {
	var pagePath, catalogPath string
	for _, k := range d.Constants {
		switch k.Symbol {
		case PagePathSymbol:
			pagePath = constString(k)
		case PageCatalogSymbol:
			catalogPath = constString(k)
		}
	}
	if pagePath == "" && catalogPath == "" {
		return nil, nil
	}
	if !strings.HasPrefix(pagePath, "/") || !strings.HasPrefix(catalogPath, "/") || path.Clean(catalogPath) != catalogPath || strings.HasSuffix(catalogPath, "/") {
		return nil, fmt.Errorf("%s: the page needs both %s and %s as clean absolute paths (have %q and %q)", d.File, PagePathSymbol, PageCatalogSymbol, pagePath, catalogPath)
	}
	c, err := Build(d, pagePath, catalogPath, fsys)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("%s: page catalog: %w", d.File, err)
	}
	return []File{{Path: SiteDir + catalogPath, Data: b.Bytes()}}, nil
}

// Build assembles the catalog of d's page.
func Build(d *spec.Domain, pagePath, catalogPath string, fsys fs.FS) (*Catalog, error) {
	tut, err := fs.ReadFile(fsys, TutorialPath)
	if err != nil {
		return nil, fmt.Errorf("%s: page catalog: the tutorial record: %w", d.File, err)
	}
	sum := sha256.Sum256(tut)
	c := &Catalog{
		Comment:   "Generated by cmd/gen from " + d.File + ". DO NOT EDIT.",
		Spec:      d.File,
		Digest:    d.Digest,
		Domain:    d.Header.ID,
		Title:     d.ExpandText(d.Header.Title),
		Version:   d.Header.Version,
		Page:      pagePath,
		Catalog:   catalogPath,
		Profiles:  []Profile{},
		RuleKinds: []RuleKind{},
		Rules:     []Rule{},
		Tutorial:  Tutorial{Path: TutorialPath, SHA256: hex.EncodeToString(sum[:]), Record: string(tut)},
	}
	events := map[string]string{}
	for _, e := range d.Events {
		events[e.ID] = e.Name
	}
	for _, p := range d.Profiles {
		cp := Profile{Name: p.Name, ID: p.ID, Revision: p.Revision, Title: d.ExpandText(p.Title),
			Events: []string{}, Limits: []Limit{}, Rules: append([]string{}, p.Rules...)}
		if p.Description != nil {
			cp.Description = d.ExpandText(*p.Description)
		}
		for _, id := range p.Events {
			cp.Events = append(cp.Events, events[id])
		}
		for _, id := range p.Constants {
			k := d.LookupConstant(id)
			if k == nil {
				return nil, fmt.Errorf("%s: profile %s lists unknown constant %s", d.File, p.Name, id)
			}
			cp.Limits = append(cp.Limits, Limit{ID: k.ID, Symbol: k.Symbol, Value: k.Value, Unit: k.Unit, Title: d.ExpandText(k.Title)})
		}
		canon, err := canonical(cp)
		if err != nil {
			return nil, fmt.Errorf("%s: profile %s: %w", d.File, p.Name, err)
		}
		s := sha256.Sum256(canon)
		cp.Digest = "sha256:" + hex.EncodeToString(s[:])
		// The page follows the document of the first profile that names a
		// revision; that profile is the page's default.
		if c.Revision == "" && p.Revision != "" {
			c.Revision, c.DefaultProfile = p.Revision, p.Name
		}
		c.Profiles = append(c.Profiles, cp)
	}
	if c.DefaultProfile == "" {
		return nil, fmt.Errorf("%s: the page follows a document revision, and no profile names one", d.File)
	}
	if !strings.Contains(catalogPath, c.Revision) {
		return nil, fmt.Errorf("%s: the catalog path %q does not name the revision %s the page follows", d.File, catalogPath, c.Revision)
	}
	for _, k := range d.Header.RuleKinds {
		c.RuleKinds = append(c.RuleKinds, RuleKind{Kind: k.Kind, Title: d.ExpandText(k.Title)})
	}
	for _, e := range d.Entries() {
		if e.Rule == nil && e.Field == nil {
			continue
		}
		// The page shows texts as the reference does: constants by value.
		r := Rule{ID: e.ID, Symbol: spec.RuleGoName(d.Header.ID, e.ID), Kind: e.Kind, Title: d.ExpandText(e.Title)}
		if e.Requirement != nil {
			r.Requirement = d.ExpandText(*e.Requirement)
		}
		c.Rules = append(c.Rules, r)
	}
	return c, nil
}

func constString(k *spec.Constant) string {
	var s string
	if json.Unmarshal(k.Value, &s) != nil {
		return ""
	}
	return s
}

// canonical encodes v with sorted keys and no insignificant space.
func canonical(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimRight(out.Bytes(), "\n"), nil
}
