package metadata

import (
	"strings"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
)

func serviceFixture() map[string]string {
	service := func(tag, name string, u int) string {
		return crlf(edHead + "\t<" + tag + ` uuid="` + uid(u) + `">
		<Properties>
			<Name>` + name + `</Name>
			<Synonym/>
			<Comment/>
			<ReuseSessions>AutoUse</ReuseSessions>
			<SessionMaxAge>20</SessionMaxAge>
		</Properties>
	</` + tag + `>
</MetaDataObject>
`)
	}
	return map[string]string{
		"eska.toml":                 "[project]\ntype = \"configuration\"\nsource = \"src\"\n",
		"src/Configuration.xml":     descU("Configuration", "Конф", 1, "", "<HTTPService>Api</HTTPService><WebService>Обмен</WebService>"),
		"src/HTTPServices/Api.xml":  service("HTTPService", "Api", 31),
		"src/WebServices/Обмен.xml": service("WebService", "Обмен", 32),
	}
}

// SessionMaxAge of HTTP and web services is an unsignedInteger field
// from 1.11: bounds and values are decimal strings, and 2^64-1 is
// written and read back exactly.
//
//contract:proves eska-ide-api.editing.unsigned-decimal
func TestUnsignedField(t *testing.T) {
	h := openEditing(t, serviceFixture(), 11)
	for _, id := range []string{"http-service:Api", "web-service:Обмен"} {
		r := h.editing(id)
		f := fieldOf(r.Fields, "SessionMaxAge")
		if f == nil {
			t.Fatalf("%s: no SessionMaxAge field", id)
		}
		schema, _ := gen.MarshalEditSchema(f.Schema)
		if string(schema) != `{"kind":"unsignedInteger","min":"0","max":"18446744073709551615"}` || string(f.Value) != `"20"` {
			t.Errorf("%s: %s %s", id, schema, f.Value)
		}
	}
	max := "18446744073709551615"
	r, err := h.update("http-service:Api", "SessionMaxAge", `{"kind":"unsignedInteger","value":"`+max+`"}`)
	if err != nil {
		t.Fatal(errText(err))
	}
	if got := h.file("HTTPServices/Api.xml"); !strings.Contains(got, "<SessionMaxAge>"+max+"</SessionMaxAge>") {
		t.Errorf("written: %s", got)
	}
	if v := string(fieldOf(r.Editing.Fields, "SessionMaxAge").Value); v != `"`+max+`"` {
		t.Errorf("reads back as %s", v)
	}
	if _, err := h.update("http-service:Api", "SessionMaxAge", `{"kind":"unsignedInteger","value":"0"}`); err != nil || !strings.Contains(h.file("HTTPServices/Api.xml"), "<SessionMaxAge>0</SessionMaxAge>") {
		t.Errorf("0: %s", errText(err))
	}
	// A change of another kind is refused for the field.
	if _, err := h.update("http-service:Api", "SessionMaxAge", `{"kind":"integer","value":5}`); err == nil {
		t.Error("an integer change was taken")
	}
}

// Negative, fractional and overflowing values, and numbers instead of
// strings, never become a change: the decoder refuses them, at 2^64 as
// at -1, so nothing reaches the XML.
//
//contract:proves eska-ide-api.editing.unsigned-decimal
func TestUnsignedRefused(t *testing.T) {
	if c, err := gen.DecodePropertyChange([]byte(`{"kind":"unsignedInteger","value":"18446744073709551615"}`)); err != nil || c.(gen.UnsignedIntegerChange).Value != 1<<64-1 {
		t.Errorf("2^64-1: %v %v", c, err)
	}
	for _, bad := range []string{`"18446744073709551616"`, `"-1"`, `"1.5"`, `"1e3"`, `"01"`, `""`, `5`, `18446744073709551615`} {
		if _, err := gen.DecodePropertyChange([]byte(`{"kind":"unsignedInteger","value":` + bad + `}`)); err == nil {
			t.Errorf("%s was taken", bad)
		}
	}
}

// Clients of 1.6 to 1.10 read SessionMaxAge but never get its schema: it
// is read-only for them with the reason client_version.
//
//contract:proves eska-ide-api.editing.version-filter eska-ide-api.editing.unsigned-decimal
func TestUnsignedOlderClients(t *testing.T) {
	for _, minor := range []int{6, 10} {
		h := openEditing(t, serviceFixture(), minor)
		r := h.editing("http-service:Api")
		if fieldOf(r.Fields, "SessionMaxAge") != nil || readOnlyReason(r, "SessionMaxAge") != "client_version" {
			t.Errorf("1.%d: %v %q", minor, fieldOf(r.Fields, "SessionMaxAge"), readOnlyReason(r, "SessionMaxAge"))
		}
		if _, err := h.b.UpdateProperty(gen.PropertyEditParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, ObjectID: "http-service:Api",
			Snapshot: r.Snapshot, Path: "SessionMaxAge", Change: gen.UnsignedIntegerChange{Value: 5}}); kindOf(err) != "property_read_only" {
			t.Errorf("1.%d update: %s", minor, errText(err))
		}
		props, err := h.b.Properties(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, ObjectID: "http-service:Api"})
		if err != nil || !strings.Contains(jsonOf(t, props), `"text":"20"`) {
			t.Errorf("1.%d cannot read the value: %s", minor, errText(err))
		}
	}
}
