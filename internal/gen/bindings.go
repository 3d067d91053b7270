package gen

import (
	"github.com/contractkit/contractkit/internal/emit/pyemit"
	"github.com/contractkit/contractkit/internal/emit/tsemit"
	"github.com/contractkit/contractkit/internal/spec"
)

// Bindings are the outputs of a domain in the peers' languages, as its
// contractkit.json entry names them: the folder of its TypeScript modules
// and of its Python module, "" for none.
type Bindings struct {
	TypeScript string
	// JSONRPC adds the vscode-jsonrpc descriptors to the TypeScript
	// binding: for a domain carried over JSON-RPC 2.0 with Content-Length
	// framing, which vscode-jsonrpc speaks.
	JSONRPC bool
	Python  string
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
