package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/internal/aicontroltest"
	"github.com/contractkit/contractkit/internal/fonline"
	"github.com/contractkit/contractkit/internal/repotest"
)

// differencesPage holds the list of differences from the reference
// sample; its Russian twin has the same table.
const differencesPage = "Docs/%s/how-to/ai-control-protocol.md"

// difference is one row of the how-to's table.
type difference struct {
	request   string // the line, with <N×s> repetitions expanded
	shown     string // the line as the table shows it
	reference string // the expected answer of the reference sample
	ours      string // the expected answer of aicontrol-sample
	rule      string
}

var (
	codeSpan = regexp.MustCompile("`([^`]*)`")
	repeat   = regexp.MustCompile(`<(\d+)×([^>]*)>`)
)

// readDifferences parses the table under the differences anchor of one
// language's page: the code spans of its first four columns, and the
// rule, which must be one of the contract's.
func readDifferences(t *testing.T, root, lang string) []difference {
	t.Helper()
	path := filepath.Join(root, fmt.Sprintf(differencesPage, lang))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, `<a id="differences"></a>`)
	if i < 0 {
		t.Fatalf("%s: no section with the anchor differences", path)
	}
	var rows []difference
	inTable := false
	for _, line := range strings.Split(text[i:], "\n")[1:] {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if strings.HasPrefix(strings.TrimSpace(cells[0]), "---") || !strings.Contains(cells[0], "`") {
			continue // the header and its rule
		}
		if len(cells) != 5 {
			t.Fatalf("%s: row %q has %d cells, want 5", path, line, len(cells))
		}
		var spans []string
		for _, c := range cells[:4] {
			m := codeSpan.FindStringSubmatch(c)
			if m == nil {
				t.Fatalf("%s: row %q: cell %q has no code span", path, line, c)
			}
			spans = append(spans, m[1])
		}
		if strings.TrimSpace(cells[4]) == "" {
			t.Errorf("%s: row %q says no why", path, line)
		}
		rows = append(rows, difference{
			request: repeat.ReplaceAllStringFunc(spans[0], func(m string) string {
				p := repeat.FindStringSubmatch(m)
				n, _ := strconv.Atoi(p[1])
				return strings.Repeat(p[2], n)
			}),
			shown: spans[0], reference: spans[1], ours: spans[2], rule: spans[3],
		})
	}
	return rows
}

// Every row of the how-to's list of differences from the reference
// sample holds: the reference sample answers the row's line as the row
// says, aicontrol-sample answers it as the row says, the two differ, and
// the rule named is one of the contract's. The Russian page lists the same
// rows. The list and both listeners therefore cannot drift apart.
//
//contract:proves ai-control-protocol.wire.request-id ai-control-protocol.wire.duplicate-members ai-control-protocol.wire.strict-json ai-control-protocol.wire.value-limit ai-control-protocol.wire.error-precedence ai-control-protocol.security.pre-auth-bounds
func TestDifferencesFromReference(t *testing.T) {
	root := repotest.Root(t)
	rows := readDifferences(t, root, "en")
	if len(rows) == 0 {
		t.Fatal("the list of differences is empty")
	}
	ru := readDifferences(t, root, "ru")
	if len(ru) != len(rows) {
		t.Fatalf("the Russian page lists %d differences, the English %d", len(ru), len(rows))
	}
	for i := range rows {
		if rows[i] != ru[i] {
			t.Errorf("row %d differs between the pages:\n en %+v\n ru %+v", i+1, rows[i], ru[i])
		}
	}
	for _, r := range rows {
		if !slices.ContainsFunc(aicontrol.Rules, func(ri aicontrol.RuleInfo) bool { return ri.ID == r.rule }) {
			t.Errorf("%s: rule %q is not in the contract", r.shown, r.rule)
		}
		if r.reference == r.ours {
			t.Errorf("%s: both answer %s; that is no difference", r.shown, r.ours)
		}
	}

	dir := fonline.Require(t, root, true)
	ref, err := fonline.StartSample(dir, refEnv, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Stop()
	ours := aicontroltest.StartSample(t, build(t, "cmd/aicontrol-sample"), refEnv, "--token-env", "FONLINE_AI_TOKEN")
	for _, peer := range []struct {
		name string
		port int
		want func(difference) string
	}{
		{"reference sample", ref.Port, func(d difference) string { return d.reference }},
		{"aicontrol-sample", ours.Port, func(d difference) string { return d.ours }},
	} {
		for _, r := range rows {
			got, err := answer(net.JoinHostPort("127.0.0.1", strconv.Itoa(peer.port)), r.request, peer.want(r))
			if err != nil {
				t.Errorf("%s, %s: %v", peer.name, r.shown, err)
				continue
			}
			if got != peer.want(r) {
				t.Errorf("%s answers %s with %s; the table says %s", peer.name, r.shown, got, peer.want(r))
			}
		}
	}
}

// answer sends line on a fresh connection (authorized first, unless the
// line is an auth) and describes the answer in the table's notation. When
// want describes a completion, the command's command_completed event is
// awaited and described.
func answer(addr, line, want string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReaderSize(c, 1<<16)
	call := func(line string) (map[string]json.RawMessage, error) {
		if _, err := io.WriteString(c, line+"\n"); err != nil {
			return nil, err
		}
		resp, err := br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(resp), &m); err != nil {
			return nil, fmt.Errorf("answer %q: %v", resp, err)
		}
		return m, nil
	}
	if !strings.Contains(line, `"method":"auth"`) {
		m, err := call(`{"jsonrpc":"2.0","id":0,"method":"auth","params":{"token":` + strconv.Quote(refToken) + `}}`)
		if err != nil || string(m["result"]) != `{"authorized":true}` {
			return "", fmt.Errorf("auth: %s %v", m["result"], err)
		}
	}
	m, err := call(line)
	switch {
	case errors.Is(err, io.EOF):
		return "closed", nil
	case err != nil:
		return "", err
	}
	if !strings.HasPrefix(want, "completed") {
		if e, ok := m["error"]; ok {
			var eo struct{ Code int64 }
			_ = json.Unmarshal(e, &eo)
			return fmt.Sprintf("%d, id %s", eo.Code, m["id"]), nil
		}
		return "result, id " + string(m["id"]), nil
	}
	var acc struct{ CommandSeq int64 }
	if err := json.Unmarshal(m["result"], &acc); err != nil || acc.CommandSeq == 0 {
		return "", fmt.Errorf("act answered %s %s", m["result"], m["error"])
	}
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		m, err := call(`{"jsonrpc":"2.0","id":2,"method":"events","params":{"afterSeq":0,"limit":500}}`)
		if err != nil {
			return "", err
		}
		var res struct {
			Events []struct {
				Event struct {
					Type       string
					CommandSeq int64
					Success    bool
					Message    string
				}
			}
		}
		if err := json.Unmarshal(m["result"], &res); err != nil {
			return "", err
		}
		for _, e := range res.Events {
			if e.Event.Type == aicontrol.EventCommandCompleted && e.Event.CommandSeq == acc.CommandSeq {
				return fmt.Sprintf("completed %v %q", e.Event.Success, e.Event.Message), nil
			}
		}
	}
	return "", fmt.Errorf("command %d never completed", acc.CommandSeq)
}
