module github.com/contractkit/contractkit

go 1.26

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/dave/jennifer v1.7.1
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
	github.com/sergi/go-diff v1.4.0
	github.com/yuin/goldmark v1.8.7
)
