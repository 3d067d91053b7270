package gen

import (
	"path"

	"github.com/contractkit/contractkit/internal/emit/goemit"
	"github.com/contractkit/contractkit/internal/emit/pyemit"
	"github.com/contractkit/contractkit/internal/emit/tsemit"
	"github.com/contractkit/contractkit/internal/spec"
)

// Bindings are the outputs of a domain in the peers' languages: the folder
// of its TypeScript modules and of its Python module, "" for none.
//
// contractkit.json (issue 23) will name these per spec, as
// "typescript": {"out": DIR, "jsonrpc": true} and "python": {"out": DIR};
// until it does, bindingsOf gives every domain of this repository both,
// beside its Go package.
type Bindings struct {
	TypeScript string
	// JSONRPC adds the vscode-jsonrpc descriptors to the TypeScript
	// binding: for a domain carried over JSON-RPC 2.0 with Content-Length
	// framing, which vscode-jsonrpc speaks.
	JSONRPC bool
	Python  string
}

// jsonrpcDomains are the domains whose peers talk to us through
// vscode-jsonrpc.
var jsonrpcDomains = map[string]bool{"eska-ide-api": true}

// bindingsOf is the binding outputs of d in this repository.
func bindingsOf(d *spec.Domain) Bindings {
	dir := goemit.Dir(d)
	return Bindings{
		TypeScript: path.Join(dir, "ts"),
		JSONRPC:    jsonrpcDomains[d.Header.ID],
		Python:     path.Join(dir, "python"),
	}
}

// bindingTasks are the tasks that write a domain's bindings.
func bindingTasks(d *spec.Domain, b Bindings) []func() ([]file, error) {
	var tasks []func() ([]file, error)
	if b.TypeScript != "" {
		tasks = append(tasks, func() ([]file, error) {
			fs, err := tsemit.Emit(d, tsemit.Options{Dir: b.TypeScript, JSONRPC: b.JSONRPC})
			return files(fs), err
		})
	}
	if b.Python != "" {
		tasks = append(tasks, func() ([]file, error) {
			fs, err := pyemit.Emit(d, pyemit.Options{Dir: b.Python})
			return files(fs), err
		})
	}
	return tasks
}
