package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Open discovers the context around start and selects from it, the two
// steps of workspace/open.
func Open(start string, sel Selection) ([]Project, error) {
	c, err := Discover(start)
	if err != nil {
		return nil, err
	}
	return c.Select(sel)
}

// Discover finds and validates the context start lies in. It validates every
// project of the context, not only those a selection will pick, because
// workspace/open publishes all or nothing and a broken member should be
// reported the same way whichever member the user opened from.
func Discover(start string) (*Context, error) {
	if !filepath.IsAbs(start) {
		return nil, fail(ReasonManifestMissing, start, "start path is not absolute", nil)
	}
	start = filepath.Clean(start)
	fi, err := os.Stat(start)
	if err != nil {
		return nil, fail(ReasonManifestMissing, start, "start path cannot be used: "+why(err), err)
	}
	dir := start
	if !fi.IsDir() {
		dir = filepath.Dir(start)
	}

	mdir, mpath, err := findManifest(dir)
	if err != nil {
		return nil, err
	}
	if mpath == "" {
		return nil, fail(ReasonManifestMissing, start, "no "+ManifestName+" in this directory or any directory above it", fs.ErrNotExist)
	}
	m, err := readManifest(mpath)
	if err != nil {
		return nil, err
	}
	if m.project == nil {
		return loadWorkspace(mdir, mpath, m.members, "")
	}

	// A project: it belongs to the nearest workspace above that lists it.
	wdir, wpath, ws, member, err := findWorkspace(mdir)
	if err != nil {
		return nil, err
	}
	if ws != nil {
		return loadWorkspace(wdir, wpath, ws.members, member)
	}
	p, err := loadProject(mdir, mpath, m.project, Scope{})
	if err != nil {
		return nil, err
	}
	return &Context{Root: mdir, Manifest: mpath, Projects: []Project{*p}}, nil
}

// findManifest walks up from dir to the nearest directory holding a
// manifest; an empty path means there is none up to the filesystem root.
func findManifest(dir string) (mdir, mpath string, err error) {
	for {
		path, ok, err := statManifest(dir)
		if err != nil {
			return "", "", err
		}
		if ok {
			return dir, path, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", nil
		}
		dir = parent
	}
}

// findWorkspace looks above the project directory pdir for the nearest
// workspace manifest. Project manifests in between are passed over, since a
// project may sit inside another project's directory without belonging to
// it; the first workspace decides, and if it does not list pdir the project
// is standalone. member is the name under which the workspace lists pdir.
func findWorkspace(pdir string) (wdir, wpath string, ws *manifest, member string, err error) {
	rp, err := filepath.EvalSymlinks(pdir)
	if err != nil {
		return "", "", nil, "", fail(ReasonManifestInvalid, pdir, "cannot resolve the project directory: "+why(err), err)
	}
	dir := pdir
	for {
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", nil, "", nil
		}
		dir = parent
		mdir, mpath, err := findManifest(dir)
		if err != nil || mpath == "" {
			return "", "", nil, "", err
		}
		m, err := readManifest(mpath)
		if err != nil {
			return "", "", nil, "", err
		}
		if m.project != nil {
			dir = mdir
			continue
		}
		for _, name := range m.members {
			// A member that cannot be resolved is not pdir; whether it is
			// broken only matters once this workspace is the context.
			if rm, err := filepath.EvalSymlinks(filepath.Join(mdir, name)); err == nil && rm == rp {
				return mdir, mpath, m, name, nil
			}
		}
		return "", "", nil, "", nil
	}
}

// loadWorkspace validates the workspace at root and loads every member.
// current is the member the start lies in, "" at the root.
func loadWorkspace(root, mpath string, members []string, current string) (*Context, error) {
	rroot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fail(ReasonManifestInvalid, mpath, "cannot resolve the workspace directory: "+why(err), err)
	}
	c := &Context{Root: root, Manifest: mpath, Workspace: true, Current: current}
	byDir := make(map[string]string, len(members)) // resolved directory → member
	for _, name := range members {
		dir := filepath.Join(root, name)
		member := fmt.Sprintf("workspace member %q", name)
		fi, err := os.Stat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fail(ReasonManifestMissing, filepath.Join(dir, ManifestName),
				fmt.Sprintf("not found; %s listed in %s has no directory", member, mpath), err)
		case err != nil:
			return nil, fail(ReasonManifestInvalid, mpath, member+" cannot be read: "+why(err), err)
		case !fi.IsDir():
			return nil, fail(ReasonManifestInvalid, mpath, member+" is not a directory", nil)
		}
		rdir, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return nil, fail(ReasonManifestInvalid, mpath, member+" cannot be resolved: "+why(err), err)
		}
		if rdir == rroot || !within(rroot, rdir) {
			return nil, fail(ReasonManifestInvalid, mpath,
				fmt.Sprintf("%s resolves to %s, which is not inside the workspace %s", member, rdir, rroot), nil)
		}
		if other, dup := byDir[rdir]; dup {
			return nil, fail(ReasonManifestInvalid, mpath,
				fmt.Sprintf("workspace members %q and %q are the same directory %s", other, name, rdir), nil)
		}
		byDir[rdir] = name

		ppath, ok, err := statManifest(dir)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fail(ReasonManifestMissing, ppath,
				fmt.Sprintf("not found; %s listed in %s needs its own %s with [project]", member, mpath, ManifestName), fs.ErrNotExist)
		}
		m, err := readManifest(ppath)
		if err != nil {
			return nil, err
		}
		if m.project == nil {
			return nil, fail(ReasonManifestInvalid, ppath,
				fmt.Sprintf("%s of %s must hold [project], not [workspace]; workspaces do not nest", member, mpath), nil)
		}
		p, err := loadProject(dir, ppath, m.project, Scope{Member: name})
		if err != nil {
			return nil, err
		}
		c.Projects = append(c.Projects, *p)
	}
	return c, nil
}

// loadProject resolves a project's source directory and root descriptor.
// Containment is checked on resolved paths because the Designer reader
// follows symlinks when it reads, and a project must not read files its
// manifest's directory does not hold.
func loadProject(root, mpath string, decl *projectDecl, scope Scope) (*Project, error) {
	if filepath.IsAbs(decl.source) {
		return nil, fail(ReasonSourceInvalid, decl.source,
			fmt.Sprintf("source directory is absolute; %s wants it relative to %s", mpath, root), nil)
	}
	source := filepath.Join(root, decl.source)
	fi, err := os.Stat(source)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fail(ReasonSourceInvalid, source, "source directory does not exist (source in "+mpath+")", err)
	case err != nil:
		return nil, fail(ReasonSourceInvalid, source, "source directory cannot be read: "+why(err), err)
	case !fi.IsDir():
		return nil, fail(ReasonSourceInvalid, source, "source is not a directory", nil)
	}
	rroot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fail(ReasonManifestInvalid, mpath, "cannot resolve the project directory: "+why(err), err)
	}
	rsource, err := filepath.EvalSymlinks(source)
	if err != nil {
		return nil, fail(ReasonSourceInvalid, source, "source directory cannot be resolved: "+why(err), err)
	}
	if !within(rroot, rsource) {
		return nil, fail(ReasonSourceInvalid, source,
			fmt.Sprintf("source directory resolves to %s, outside the project directory %s", rsource, rroot), nil)
	}

	descriptor, err := rootDescriptor(source, decl)
	if err != nil {
		return nil, err
	}
	fi, err = os.Stat(descriptor)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fail(ReasonRootInvalid, descriptor, "root descriptor does not exist", err)
	case err != nil:
		return nil, fail(ReasonRootInvalid, descriptor, "root descriptor cannot be read: "+why(err), err)
	case !fi.Mode().IsRegular():
		return nil, fail(ReasonRootInvalid, descriptor, "root descriptor is not a regular file", nil)
	}
	rdesc, err := filepath.EvalSymlinks(descriptor)
	if err != nil {
		return nil, fail(ReasonRootInvalid, descriptor, "root descriptor cannot be resolved: "+why(err), err)
	}
	if !within(rsource, rdesc) {
		return nil, fail(ReasonRootInvalid, descriptor,
			fmt.Sprintf("root descriptor resolves to %s, outside the source directory %s", rdesc, rsource), nil)
	}
	// Opened only to learn early that it is unreadable; the reader parses it.
	f, err := os.Open(descriptor)
	if err != nil {
		return nil, fail(ReasonRootInvalid, descriptor, "root descriptor cannot be read: "+why(err), err)
	}
	f.Close()

	return &Project{
		Scope:      scope,
		Type:       decl.typ,
		Root:       root,
		Manifest:   mpath,
		Source:     source,
		Descriptor: descriptor,
	}, nil
}

// configurationDescriptor is the name Designer always gives the root file of
// a configuration or extension dump.
const configurationDescriptor = "Configuration.xml"

func rootDescriptor(source string, decl *projectDecl) (string, error) {
	switch {
	case decl.typ == TypeConfiguration || decl.typ == TypeExtension:
		return filepath.Join(source, configurationDescriptor), nil
	case decl.descriptor != "":
		if !filepath.IsLocal(decl.descriptor) {
			path := decl.descriptor
			if !filepath.IsAbs(path) {
				path = filepath.Join(source, path)
			}
			return "", fail(ReasonRootInvalid, path,
				"root descriptor must be a relative path inside the source directory "+source, nil)
		}
		return filepath.Join(source, decl.descriptor), nil
	}
	entries, err := os.ReadDir(source)
	if err != nil {
		return "", fail(ReasonSourceInvalid, source, "source directory cannot be listed: "+why(err), err)
	}
	var xml []string
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".xml" {
			continue
		}
		// Stat rather than the entry's type, so a symlinked descriptor counts.
		if fi, err := os.Stat(filepath.Join(source, e.Name())); err == nil && fi.Mode().IsRegular() {
			xml = append(xml, e.Name())
		}
	}
	slices.Sort(xml)
	switch len(xml) {
	case 1:
		return filepath.Join(source, xml[0]), nil
	case 0:
		return "", fail(ReasonSourceInvalid, source,
			fmt.Sprintf("source directory holds no *.xml root descriptor for the %s", decl.typ), nil)
	default:
		return "", fail(ReasonSourceInvalid, source,
			fmt.Sprintf("source directory holds several *.xml files (%s); set project.descriptor to choose the %s's root descriptor",
				strings.Join(xml, ", "), decl.typ), nil)
	}
}

// within reports whether path is dir or lies below it; both are resolved.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel)
}
