package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/contractkit/contractkit/internal/config"
)

// generateFile is the Go file gen init writes at the repository root: its
// //go:generate line runs gen, and the starter rule's source points at it.
const generateFile = "contractkit.go"

// generateLine is the //go:generate line; the starter spec's rule names it
// as its source anchor, so gen --check fails if it is removed.
const generateLine = "//go:generate go run github.com/contractkit/contractkit/cmd/gen"

// initFile is one file gen init writes unless it exists.
type initFile struct {
	path string // slash-separated, relative to the root
	data []byte
}

// runInit writes the files a repository needs to use contractkit, each
// only where no file exists, and prints what it wrote, what it kept and
// the next commands.
func runInit(args []string, stdout, stderr io.Writer) int {
	root := "."
	switch {
	case len(args) == 2 && args[0] == "--root":
		root = args[1]
	case len(args) == 1 && strings.HasPrefix(args[0], "--root="):
		root = strings.TrimPrefix(args[0], "--root=")
	case len(args) == 1 && (args[0] == "--help" || args[0] == "-h"):
		fmt.Fprint(stderr, initUsage)
		return 0
	case len(args) > 0:
		fmt.Fprintf(stderr, "gen init: unexpected argument %q\n%s", args[0], initUsage)
		return 2
	}
	module := config.ModulePath(os.DirFS(root))
	if module == "" {
		fmt.Fprintf(stderr, "gen init: no go.mod with a module line in %s: run go mod init first\n", root)
		return 2
	}
	pkg, err := rootPackage(root, module)
	if err != nil {
		fmt.Fprintln(stderr, "gen init:", err)
		return 2
	}
	files := starterFiles(module, pkg)
	var wrote, kept []string
	dirs := map[string]bool{}
	for _, f := range files {
		full := filepath.Join(root, filepath.FromSlash(f.path))
		created, err := createNew(full, f.data)
		if err != nil {
			fmt.Fprintln(stderr, "gen init:", err)
			return 2
		}
		if created {
			wrote = append(wrote, f.path)
			dirs[filepath.Dir(full)] = true
		} else {
			kept = append(kept, f.path)
		}
	}
	// The new names are durable once their folders are synced, each once.
	for dir := range dirs {
		if d, err := os.Open(dir); err == nil {
			_ = d.Sync()
			d.Close()
		}
	}
	for _, p := range wrote {
		fmt.Fprintln(stdout, "wrote", p)
	}
	for _, p := range kept {
		fmt.Fprintf(stdout, "kept %s: it exists, gen init never overwrites a file\n", p)
	}
	fmt.Fprint(stdout, nextCommands)
	return 0
}

const initUsage = `usage: gen init [--root DIR]

Writes contractkit.json (and its JSON Schema), a starter spec, an empty
dispositions file and a Go file with a //go:generate line into DIR (the
working directory by default), which must hold a go.mod. An existing file
is never overwritten: gen init names each one it kept.
`

// nextCommands are printed after gen init; the tutorial
// (Docs/en/how-to/adopt.md) shows the same commands.
const nextCommands = `
Next:
  go get github.com/contractkit/contractkit@latest
  go generate ./...
  go build ./... && go vet ./...
  go run github.com/contractkit/contractkit/cmd/gen --check
Edit spec/*.json and run go generate ./... again; in CI run gen --check and
go run github.com/contractkit/contractkit/cmd/contractdiff --enforce.
`

// rootPackage is the package of the Go files at the root, or a name made
// from the module path's last element when there are none.
func rootPackage(root, module string) (string, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return "", err
	}
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, n), nil, parser.PackageClauseOnly)
		if err != nil {
			return "", err
		}
		return f.Name.Name, nil
	}
	return identifier(module), nil
}

// identifier makes a Go package name (and a domain id) from the last
// element of a module path: lower-case letters and digits, never empty.
func identifier(module string) string {
	last := module[strings.LastIndex(module, "/")+1:]
	var b strings.Builder
	for _, r := range strings.ToLower(last) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' && b.Len() > 0 {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 || b.String() == "main" {
		return "app"
	}
	return b.String()
}

// createNew writes a new file atomically (a temporary file in the same
// folder, synced, then linked to its name, which fails if the name
// exists, even as a symbolic link) and reports whether it did; an existing
// file is left as it is. The caller syncs the folder.
func createNew(full string, data []byte) (bool, error) {
	if _, err := os.Lstat(full); err == nil {
		return false, nil
	}
	dir := filepath.Dir(full)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(dir, ".gen-init-*")
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Close(); err != nil {
		return false, err
	}
	if err := os.Link(tmp.Name(), full); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// starterFiles are the files gen init writes for a module and the package
// name of its root.
func starterFiles(module, pkg string) []initFile {
	id := identifier(module)
	r := strings.NewReplacer("{{ID}}", id, "{{PKG}}", id, "{{ANCHOR}}", generateLine, "{{FILE}}", generateFile)
	return []initFile{
		{config.FileName, []byte(starterConfig)},
		{config.SchemaFileName, config.Schema},
		{"spec/" + id + ".json", []byte(r.Replace(starterSpec))},
		{config.DefaultDispositions, []byte(emptyDispositions)},
		{generateFile, bytes.ReplaceAll([]byte(r.Replace(starterGo)), []byte("{{ROOTPKG}}"), []byte(pkg))},
	}
}

const starterConfig = `{
  "$schema": "./contractkit.schema.json",
  "version": 1,
  "specs": [
    {
      "path": "spec/*.json",
      "go": {"out": "contract/{package}"},
      "docs": {"out": "docs/{lang}/reference/{id}"}
    }
  ],
  "contractdiff": {
    "dispositions": "contract-change-dispositions.json",
    "defaultBranch": "main"
  }
}
`

const emptyDispositions = `{
  "dispositions": []
}
`

const starterGo = `// Package {{ROOTPKG}} runs contractkit's generator: go generate ./...
// regenerates the packages under contract/ and the pages under docs/ from
// spec/*.json, as contractkit.json says.
package {{ROOTPKG}}

{{ANCHOR}}
`

// starterSpec is a small valid spec: one domain, one type, one method, one
// error, and one rule whose source is the //go:generate line above.
const starterSpec = `{
  "format": 1,
  "domain": {
    "id": "{{ID}}",
    "package": "{{PKG}}",
    "title": {"en": "{{ID}} protocol", "ru": "Протокол {{ID}}"},
    "description": {"en": "The contract between the {{ID}} server and its clients.", "ru": "Контракт между сервером {{ID}} и его клиентами."},
    "version": "0.1",
    "stability": "experimental",
    "since": "0.1",
    "scope": {"included": [], "excluded": []},
    "ruleKinds": [
      {"kind": "validation", "title": {"en": "Validation rules", "ru": "Правила проверки"}, "description": {"en": "How messages are checked.", "ru": "Как проверяются сообщения."}}
    ],
    "invalidParams": "{{ID}}.error.invalid-params",
    "parties": [
      {"name": "client", "end": "client", "implemented": false, "title": {"en": "Client", "ru": "Клиент"}, "description": {"en": "Sends requests.", "ru": "Отправляет запросы."}},
      {"name": "server", "end": "server", "implemented": true, "title": {"en": "Server", "ru": "Сервер"}, "description": {"en": "Answers them.", "ru": "Отвечает на них."}}
    ]
  },
  "types": [
    {
      "id": "{{ID}}.type.message", "name": "Message", "kind": "object", "additionalFields": "reject",
      "title": {"en": "Message", "ru": "Сообщение"}, "description": {"en": "A short text.", "ru": "Короткий текст."},
      "fields": [
        {"name": "text", "type": "string", "required": true, "constraints": {"minLength": 1, "maxLength": 256}, "description": {"en": "The text, 1 to 256 characters.", "ru": "Текст от 1 до 256 символов."}}
      ]
    }
  ],
  "methods": [
    {
      "id": "{{ID}}.method.echo", "method": "echo",
      "title": {"en": "Echo a message", "ru": "Повторить сообщение"}, "requirement": {"en": "echo returns the message it was sent.", "ru": "echo возвращает присланное сообщение."}, "rationale": {"en": "Clients check that the server answers.", "ru": "Клиенты проверяют, что сервер отвечает."},
      "stability": "experimental", "since": "0.1",
      "params": "Message", "result": "Message", "errors": ["{{ID}}.error.invalid-params"],
      "examples": {
        "params": {"valid": [{"text": "hello"}], "invalid": [{"value": {"text": ""}, "pointer": "/text"}, {"value": {"text": "hello", "extra": 1}, "pointer": "/extra"}]},
        "result": {"valid": [{"text": "hello"}], "invalid": [{"value": {}, "pointer": ""}]}
      }
    }
  ],
  "errors": [
    {
      "id": "{{ID}}.error.invalid-params", "code": -32602, "symbol": "InvalidParams", "message": {"en": "Invalid params", "ru": "Неверные параметры"},
      "title": {"en": "Invalid params", "ru": "Неверные параметры"}, "requirement": {"en": "Params that break the contract are rejected with this error.", "ru": "Параметры, нарушающие контракт, отклоняются с этой ошибкой."}, "rationale": {"en": "The client learns what was wrong.", "ru": "Клиент узнаёт, что было не так."},
      "stability": "experimental", "since": "0.1"
    }
  ],
  "rules": [
    {
      "id": "{{ID}}.validation.generated", "title": {"en": "Generated decoders", "ru": "Сгенерированные декодеры"},
      "requirement": {"en": "Messages are decoded by the decoders generated from this spec.", "ru": "Сообщения декодируются декодерами, созданными по этой спецификации."},
      "rationale": {"en": "Hand-written decoders drift from the contract.", "ru": "Написанные вручную декодеры расходятся с контрактом."},
      "stability": "experimental", "since": "0.1",
      "source": [{"path": "{{FILE}}", "anchor": "{{ANCHOR}}"}]
    }
  ],
  "docs": {
    "pages": [
      {"slug": "api", "title": {"en": "API", "ru": "API"}, "sections": ["methods", "types", "errors", "rules:validation"]}
    ]
  }
}
`
