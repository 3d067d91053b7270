package strictjson_test

import (
	"errors"
	"fmt"

	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Parse returns a tree whose members keep their document order; Get finds
// a member by name, and the number accessors say whether the literal fits.
func ExampleParse() {
	v, err := strictjson.Parse([]byte(`{"name": "probe", "seq": 9007199254740993}`), strictjson.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(v.Kind, v.Get("name").Str)
	seq, exact := v.Get("seq").Uint64()
	fmt.Println(seq, exact)
	// Output:
	// object probe
	// 9007199254740993 true
}

// A repeated member name is an error at the pointer of the repeat, where
// encoding/json would silently keep the last value.
func ExampleParse_duplicateMember() {
	_, err := strictjson.Parse([]byte(`{"role": "user", "role": "admin"}`), strictjson.Options{})
	var se *strictjson.Error
	if errors.As(err, &se) {
		fmt.Println(se.Pointer, se.Msg)
	}
	// Output:
	// /role duplicate member name "role"
}

// Valid checks a document without building its tree; the options bound
// what a hostile peer can make the parser do.
func ExampleValid() {
	deep := []byte(`[[[[1]]]]`)
	fmt.Println(strictjson.Valid(deep, strictjson.Options{MaxDepth: 4}) == nil)
	fmt.Println(strictjson.Valid(deep, strictjson.Options{MaxDepth: 3}) != nil)
	// Output:
	// true
	// true
}

// AppendString writes a JSON string as encoding/json does with HTML
// escaping off.
func ExampleAppendString() {
	b := strictjson.AppendString(nil, "line\n<tab>\t\"quoted\"")
	fmt.Println(string(b))
	// Output:
	// "line\n<tab>\t\"quoted\""
}
