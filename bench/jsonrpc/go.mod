module github.com/contractkit/contractkit/bench/jsonrpc

go 1.26.0

replace github.com/contractkit/contractkit => ../..

require (
	github.com/contractkit/contractkit v0.0.0-00010101000000-000000000000
	github.com/creachadair/jrpc2 v1.3.6
	go.lsp.dev/jsonrpc2 v1.0.1
)

require (
	github.com/BurntSushi/toml v1.6.0 // indirect
	github.com/creachadair/mds v0.31.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260601182631-00ed12fed2a6 // indirect
	golang.org/x/sync v0.24.0 // indirect
)
