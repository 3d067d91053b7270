// Command scalecorpus builds a configuration at eska's scale from the
// SSL 3.1 corpus: every top-level object of SSL, N times, inside one
// configuration. Copy 0 is SSL as it is; copy k (k ≥ 1) of an object named
// X is named X_k, in its file and folder names, in its descriptor's Name
// and in the root's ChildObjects, and every UUID in its XML files is
// replaced by one derived from the old UUID and k, so that no two copies
// share an identity. References between objects are left as they are,
// so those of every copy lead to copy 0.
//
// Usage:
//
//	go run ./bench/scalecorpus -n 16 -out .cache/scale/16 [-archive ../shared/corpus/designer/ssl_3_1.tar.gz]
//
// The output is a project directory with an eska.toml (sources in src/cf)
// that `eska ide --stdio` and `bench/idebench -project` open. The
// archive is extracted once beside the output (<out>/../ssl_3_1); files a
// copy does not change are hard links to that extraction, so N=16 takes
// little more disk than its rewritten XML. The output belongs in an
// ignored folder such as .cache/; it is never committed.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/contractkit/contractkit/designer"
	"github.com/contractkit/contractkit/internal/corpus"
)

func main() {
	n := flag.Int("n", 1, "copies of SSL inside the configuration (1 is SSL itself)")
	out := flag.String("out", "", "the project directory to write (replaced if it exists)")
	archive := flag.String("archive", "../shared/corpus/designer/ssl_3_1.tar.gz", "the SSL 3.1 corpus archive")
	flag.Parse()
	if *n < 1 || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: scalecorpus -n N -out dir [-archive ssl_3_1.tar.gz]; N ≥ 1")
		os.Exit(2)
	}
	stats, err := build(*n, *out, *archive)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scalecorpus:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d copies of %d top-level objects (%d descriptors), %d files rewritten, %d linked\n",
		*out, *n, stats.objects, stats.descriptors, stats.rewritten, stats.linked)
}

type stats struct {
	objects, descriptors, rewritten, linked int
}

// source is where SSL's Designer sources are in its extraction.
const source = "src/cf"

// build writes the project. It extracts the archive beside out unless an
// extraction is already there.
func build(n int, out, archive string) (stats, error) {
	var st stats
	extracted := filepath.Join(filepath.Dir(filepath.Clean(out)), "ssl_3_1")
	if _, err := os.Stat(filepath.Join(extracted, source, "Configuration.xml")); err != nil {
		if err := corpus.Extract(archive, filepath.Dir(extracted)); err != nil {
			return st, fmt.Errorf("extracting %s: %w", archive, err)
		}
	}
	src := filepath.Join(extracted, source)
	if err := os.RemoveAll(out); err != nil {
		return st, err
	}
	dst := filepath.Join(out, source)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return st, err
	}
	root, err := os.ReadFile(filepath.Join(src, "Configuration.xml"))
	if err != nil {
		return st, err
	}
	objects, rootOut, err := replicateRoot(root, n)
	if err != nil {
		return st, err
	}
	st.objects = len(objects)
	if err := os.WriteFile(filepath.Join(dst, "Configuration.xml"), rootOut, 0o644); err != nil {
		return st, err
	}
	// Everything at the top of the sources but the object folders (the
	// root's modules, the dump's own files) is taken as it is.
	kindDirs := map[string]bool{}
	for _, o := range objects {
		kindDirs[o.dir] = true
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return st, err
	}
	for _, e := range entries {
		if e.Name() == "Configuration.xml" || kindDirs[e.Name()] {
			continue
		}
		if err := copyTree(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()), nil, &st); err != nil {
			return st, err
		}
	}
	for _, o := range objects {
		for k := 0; k < n; k++ {
			name := copyName(o.name, k)
			rewrite := func(rel string, data []byte) []byte {
				if k == 0 {
					return nil
				}
				out := renewUUIDs(data, k)
				if rel == o.name+".xml" {
					out = bytes.Replace(out, []byte("<Name>"+o.name+"</Name>"), []byte("<Name>"+name+"</Name>"), 1)
				}
				if bytes.Equal(out, data) {
					return nil // nothing to change: linked
				}
				return out
			}
			from, to := filepath.Join(src, o.dir), filepath.Join(dst, o.dir)
			if err := os.MkdirAll(to, 0o755); err != nil {
				return st, err
			}
			if err := copyFile(filepath.Join(from, o.name+".xml"), filepath.Join(to, name+".xml"), o.name+".xml", rewrite, &st); err != nil {
				return st, err
			}
			st.descriptors++
			if _, err := os.Stat(filepath.Join(from, o.name)); err == nil {
				if err := copyTree(filepath.Join(from, o.name), filepath.Join(to, name), rewrite, &st); err != nil {
					return st, err
				}
			}
		}
	}
	manifest := "[project]\ntype = \"configuration\"\nsource = \"" + source + "\"\n"
	return st, os.WriteFile(filepath.Join(out, "eska.toml"), []byte(manifest), 0o644)
}

type topObject struct {
	tag, dir, name string
}

// childObject matches one declaration in the root's ChildObjects.
var childObject = regexp.MustCompile(`(?m)^(\s*)<([A-Za-z]+)>([^<]+)</[A-Za-z]+>\r?\n`)

// replicateRoot repeats every declaration of the root's ChildObjects n
// times, each copy right after its original, and lists the objects.
func replicateRoot(root []byte, n int) ([]topObject, []byte, error) {
	start := bytes.Index(root, []byte("<ChildObjects>"))
	end := bytes.LastIndex(root, []byte("</ChildObjects>"))
	if start < 0 || end < start {
		return nil, nil, errors.New("the root descriptor Configuration.xml has no ChildObjects")
	}
	body := root[start:end]
	var objects []topObject
	seen := map[string]bool{}
	var failure error
	replicated := childObject.ReplaceAllFunc(body, func(m []byte) []byte {
		sub := childObject.FindSubmatch(m)
		indent, tag, name := string(sub[1]), string(sub[2]), string(sub[3])
		info, ok := designer.KindOfTag(tag)
		if !ok {
			failure = fmt.Errorf("ChildObjects holds <%s>, not a known kind", tag)
			return m
		}
		dir := info.Dir
		if dir == "" {
			dir = tag + "s" // as the backend looks for it
		}
		objects = append(objects, topObject{tag: tag, dir: dir, name: name})
		var b bytes.Buffer
		for k := 0; k < n; k++ {
			key := tag + "." + copyName(name, k)
			if seen[key] {
				failure = fmt.Errorf("copy %d of %s.%s collides with an object of that name", k, tag, name)
			}
			seen[key] = true
			fmt.Fprintf(&b, "%s<%s>%s</%s>\n", indent, tag, copyName(name, k), tag)
		}
		return b.Bytes()
	})
	if failure != nil {
		return nil, nil, failure
	}
	out := append(append(append([]byte{}, root[:start]...), replicated...), root[end:]...)
	return objects, out, nil
}

// copyName is the name of copy k of an object.
func copyName(name string, k int) string {
	if k == 0 {
		return name
	}
	return name + "_" + strconv.Itoa(k)
}

var uuidRE = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// renewUUIDs replaces every UUID with one derived from it and k: the same
// UUID becomes the same new one throughout a copy. The nil UUID stays.
func renewUUIDs(data []byte, k int) []byte {
	if !uuidRE.Match(data) {
		return data
	}
	return uuidRE.ReplaceAllFunc(data, func(u []byte) []byte {
		if string(u) == "00000000-0000-0000-0000-000000000000" {
			return u
		}
		h := sha256.Sum256(append(bytes.ToLower(u), []byte("/"+strconv.Itoa(k))...))
		x := hex.EncodeToString(h[:16])
		return []byte(x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32])
	})
}

// copyTree copies a folder: XML files through rewrite, which returns nil
// to keep a file as it is; files kept as they are become hard links.
func copyTree(from, to string, rewrite func(rel string, data []byte) []byte, st *stats) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		target := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		return copyFile(path, target, rel, rewrite, st)
	})
}

func copyFile(from, to, rel string, rewrite func(rel string, data []byte) []byte, st *stats) error {
	if rewrite != nil && strings.HasSuffix(from, ".xml") {
		data, err := os.ReadFile(from)
		if err != nil {
			return err
		}
		if out := rewrite(filepath.ToSlash(rel), data); out != nil {
			st.rewritten++
			return os.WriteFile(to, out, 0o644)
		}
	}
	st.linked++
	if err := os.Link(from, to); err == nil {
		return nil
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	outFile, err := os.Create(to)
	if err != nil {
		return err
	}
	_, err = io.Copy(outFile, in)
	if cerr := outFile.Close(); err == nil {
		err = cerr
	}
	return err
}
