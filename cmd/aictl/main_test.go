package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/bridge"
	"github.com/contractkit/contractkit/generated/aicontrol"
)

// Every common command field and project members given on the command
// line reach the client loop unchanged, with their JSON types.
//
//contract:proves ai-control-protocol.command.type ai-control-protocol.command.target-id ai-control-protocol.command.item-id ai-control-protocol.command.aux-id ai-control-protocol.command.x ai-control-protocol.command.y ai-control-protocol.command.screen-x ai-control-protocol.command.screen-y ai-control-protocol.command.int-arg ai-control-protocol.command.string-arg ai-control-protocol.command.append
func TestCommandFields(t *testing.T) {
	s, err := bridge.Listen(bridge.Config{Enabled: true, Addr: "127.0.0.1:0", Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	port := strconv.Itoa(s.Addr().(*net.TCPAddr).Port)
	getenv := func(k string) string {
		if k == "MY_TOKEN" {
			return "tok"
		}
		return ""
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"act", "--port", port, "--token-env", "MY_TOKEN",
		"--type", "use", "--target-id", "42", "--item-id", "sword-1", "--aux-id", "-7",
		"--x", "3", "--y", "-4", "--screen-x", "640", "--screen-y", "360", "--int-arg", "9007199254740991",
		"--string-arg", "Привет, мир", "--append",
		"--field", "channel=party", "--field", `weights=[1,2]`, "--json", `{"nested":{"a":true}}`}, &out, &errb, getenv)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res aicontrol.ActResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.CommandSeq != 1 {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	cmds := s.Drain(0)
	if len(cmds) != 1 {
		t.Fatalf("drained %d commands", len(cmds))
	}
	got, err := json.Marshal(cmds[0].Params)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"use","targetId":42,"itemId":"sword-1","auxId":-7,"x":3,"y":-4,"screenX":640,"screenY":360,` +
		`"intArg":9007199254740991,"stringArg":"Привет, мир","append":true,"channel":"party","nested":{"a":true},"weights":[1,2]}`
	if string(got) != want {
		t.Errorf("command\n got %s\nwant %s", got, want)
	}
	// Only the flags given are sent.
	out.Reset()
	if code := run(context.Background(), []string{"act", "--port", port, "--token-env", "MY_TOKEN", "--type", "wave"}, &out, &errb, getenv); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	got, _ = json.Marshal(s.Drain(0)[0].Params)
	if string(got) != `{"type":"wave"}` {
		t.Errorf("minimal command %s", got)
	}
	// A wrong token in the variable is reported without being printed.
	errb.Reset()
	code = run(context.Background(), []string{"ping", "--port", port, "--token-env", "OTHER"}, &out, &errb, func(string) string { return "guess-9" })
	if code != 1 || !strings.Contains(errb.String(), "$OTHER was refused") || strings.Contains(errb.String(), "guess-9") {
		t.Errorf("wrong token: exit %d %q", code, errb.String())
	}
}

// --version names the command and the toolchain that built it (the
// details come from internal/buildinfo, tested there).
func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "version"} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{arg}, &out, &errb, func(string) string { return "" })
		if code != 0 || !strings.HasPrefix(out.String(), "aictl ") || !strings.Contains(out.String(), runtime.Version()) || errb.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", arg, code, out.String(), errb.String())
		}
	}
}
