package agui

import (
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Each direct handler decodes its event's own type. The body decoders do
// not read the tag (the checker has matched it to the handler), so a
// handler paired with another type's decoder would decode an event as
// that type: a member no type has is refused under the type's name.
func TestDirectsDecodeTheirType(t *testing.T) {
	p, m, err := setup(Options{Profile: stand})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for k, h := range kindDirects {
		if h == nil {
			continue
		}
		n++
		info := contract.Events[k]
		c := newChecker(p, m, Options{})
		tree, perr := strictjson.Parse([]byte(`{"type":"`+info.Name+`","zzNotAMember":1}`), strictjson.Options{})
		if perr != nil {
			t.Fatal(perr)
		}
		err := h(c, 0, info.Name, tree)
		if err == nil || !strings.Contains(err.Error(), `"zzNotAMember" of `+info.Payload) {
			t.Errorf("%s: %v; want the member refused as one of %s", info.Name, err, info.Payload)
		}
	}
	if n != len(directs) {
		t.Errorf("%d direct handlers by kind, %d by name", n, len(directs))
	}
}
