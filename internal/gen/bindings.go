package gen

import (
	"github.com/contractkit/contractkit/internal/config"
	"github.com/contractkit/contractkit/internal/emit/pyemit"
	"github.com/contractkit/contractkit/internal/emit/tsemit"
	"github.com/contractkit/contractkit/internal/spec"
)

// bindingTasks are the tasks that write a domain's bindings in the peers'
// languages, where its resolved target puts them: the folder of its
// TypeScript modules (with the vscode-jsonrpc descriptors when JSONRPC
// asks) and of its Python module, "" for none.
func bindingTasks(d *spec.Domain, t config.Target) []func() ([]file, error) {
	var tasks []func() ([]file, error)
	if t.TypeScript != "" {
		tasks = append(tasks, func() ([]file, error) {
			fs, err := tsemit.Emit(d, tsemit.Options{Dir: t.TypeScript, JSONRPC: t.JSONRPC})
			return files(fs), err
		})
	}
	if t.Python != "" {
		tasks = append(tasks, func() ([]file, error) {
			fs, err := pyemit.Emit(d, pyemit.Options{Dir: t.Python})
			return files(fs), err
		})
	}
	return tasks
}
