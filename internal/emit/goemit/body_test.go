package goemit_test

import (
	"reflect"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/runtime/genrt"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// A variant's body decoder is its tree decoder without the tag check: on
// a tree whose tag is the variant's it decodes what the tree decoder
// decodes, and fails where it fails for any other member; it does not
// read the tag, so a tree whose tag names another variant or none decodes
// the same, where the tree decoder refuses it.
func TestVariantBodyDecoder(t *testing.T) {
	tree := func(s string) *strictjson.Value {
		t.Helper()
		v, err := strictjson.Parse([]byte(s), strictjson.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	good := tree(`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"user","name":"n"}`)
	want, err := contract.DecodeTextMessageStartEventTree(good, &genrt.Decoder{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"user","name":"n"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m","role":"user","name":"n"}`,
		`{"type":7,"messageId":"m","role":"user","name":"n"}`,
		`{"messageId":"m","role":"user","name":"n"}`,
	} {
		got, err := contract.DecodeTextMessageStartEventBody(tree(s), &genrt.Decoder{})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: body %+v, %v; want %+v", s, got, err, want)
		}
		if _, err := contract.DecodeTextMessageStartEventTree(tree(s), &genrt.Decoder{}); (err == nil) != (s == `{"type":"TEXT_MESSAGE_START","messageId":"m","role":"user","name":"n"}`) {
			t.Errorf("%s: tree decoder error %v", s, err)
		}
	}
	for _, s := range []string{`{"type":"TEXT_MESSAGE_START","role":"user"}`, `{"type":"TEXT_MESSAGE_START","messageId":1}`, `[]`, `"TEXT_MESSAGE_START"`} {
		_, bodyErr := contract.DecodeTextMessageStartEventBody(tree(s), &genrt.Decoder{})
		_, treeErr := contract.DecodeTextMessageStartEventTree(tree(s), &genrt.Decoder{})
		if bodyErr == nil || treeErr == nil || (s[0] == '{' && bodyErr.Error() != treeErr.Error()) {
			t.Errorf("%s: body error %v, tree error %v; want the same error", s, bodyErr, treeErr)
		}
	}
}
