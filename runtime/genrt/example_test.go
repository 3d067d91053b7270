package genrt_test

import (
	"errors"
	"fmt"

	"github.com/contractkit/contractkit/runtime/genrt"
)

// A generated Decode function parses the bytes, checks each member, and
// gives every failure the domain's invalid-params code; the error names
// the JSON pointer of the failing value.
func ExampleWithCode() {
	const invalidParams = -32602
	v, err := genrt.Parse([]byte(`{"text": ""}`))
	if err != nil {
		panic(err)
	}
	text, err := genrt.String(v.Get("text"), "/text")
	if err == nil {
		err = genrt.Length(text, "/text", 1, 256)
	}
	err = genrt.WithCode(err, invalidParams)
	var ve *genrt.ValidationError
	if errors.As(err, &ve) {
		fmt.Println(ve.Code, ve.Pointer)
		fmt.Println(ve)
	}
	// Output:
	// -32602 /text
	// /text: string of 0 characters is shorter than the minimum 1
}

// Malformed input becomes a ValidationError too, so a server answers it
// the same way.
func ExampleParse() {
	_, err := genrt.Parse([]byte(`{"a": 1, "a": 2}`))
	fmt.Println(genrt.WithCode(err, -32602))
	// Output:
	// /a: invalid JSON: duplicate member name "a"
}

// Nullable tells a member that was absent from one that was null.
func ExampleNullable() {
	for _, n := range []genrt.Nullable[string]{{}, genrt.NullOf[string](), genrt.Some("c1")} {
		v, ok := n.Get()
		fmt.Printf("absent=%v null=%v value=%q present=%v\n", n.IsAbsent(), n.IsNull(), v, ok)
	}
	// Output:
	// absent=true null=false value="" present=false
	// absent=false null=true value="" present=false
	// absent=false null=false value="c1" present=true
}

// Versions compare by their numbers, not as text.
func ExampleCompareVersions() {
	fmt.Println(genrt.CompareVersions("1.10", "1.9"), genrt.CompareVersions("2.0", "2.0"))
	// Output:
	// 1 0
}
