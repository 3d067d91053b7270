package agui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/internal/repotest"
)

// The differential check runs the reference verifier of @ag-ui/client on
// Node over the same records as the ag-ui-1.1 profile and compares the
// outcomes. Every disagreement must be listed here with the reason it is
// deliberate; a listed record that no longer disagrees fails as well, so
// the list cannot go stale.
var deliberate = map[string]string{
	"duplicate-member.ndjson":             "the strict reader rejects repeated member names in every profile; JSON.parse keeps the last one, so two readers of the record would see different runs",
	"lone-surrogate.ndjson":               "the strict reader rejects unpaired surrogates in every profile; JSON.parse keeps them, and they cannot be written as UTF-8 on the way to the screen",
	"deep-state.ndjson":                   "the depth limit (20 levels from the event) bounds the checker under every profile; the reference reads any depth its JSON.parse allows",
	"null-attribution.ndjson":             "AG-UI 1.1 here reads null in any optional member as absent, with a warning, as the official SDKs read it; the reference's compatibility boundary converts only the members on its deprecation list, and subagentRunId is not on it",
	"run-identity.ndjson":                 "RUN_FINISHED closes another run than the one that started: the checker follows the draft of the protocol, which makes the run identity binding; the reference does not compare the ids",
	"cut-run.ndjson":                      "the record ends inside its run: the draft of the protocol fails the run of a cut stream; the reference completes when its input ends, whatever is open",
	"duplicate-interrupt-ids.ndjson":      "two interrupts of one outcome share an id: the draft of the protocol requires distinct ids, which a resume answers by; the reference does not compare them",
	"second-thread.ndjson":                "a second run on another thread: a stream answers one run input, which names one thread; the reference does not compare threads across runs",
	"reopen-renamed-call.ndjson":          "a closed tool call reopened under another tool's name: a reopened entity continues the one it reopens and must agree with it; the reference's verifier does not compare the names, so its reducer would show one call",
	"reopen-other-role.ndjson":            "a closed assistant message reopened as a user message: a reopening start must agree with the message's role; the reference's verifier does not compare roles",
	"reopen-without-role.ndjson":          "a closed user message reopened by a start with no role, which means assistant: a reopening start must agree with the message's role; the reference's reducer would append the agent's text to the user's message",
	"reasoning-on-answer-id.ndjson":       "a reasoning message on the id of an answer: an id names one message of the conversation; the reference's reducer would append the reasoning to the answer",
	"reopen-answered-call.ndjson":         "a tool call reopened after its result: the arguments sent then would be shown under a result that did not answer them; the reference's reducer appends them to the answered call",
	"args-after-result.ndjson":            "arguments for a call after its result (AG-UI 1.1 lets a result come before the end): they would be shown under a result that did not answer them; the reference's reducer appends them to the answered call",
	"start-on-result-id.ndjson":           "a text start with no role (assistant) on the messageId of a result shown beside its call: the id names a tool message; the reference's reducer would append the agent's text to the tool's result",
	"start-on-input-id.ndjson":            "a text start with no role (assistant) on the id of a user's message of the run input: the id names that message; the reference's reducer would append the agent's text to the user's message",
	"start-on-call-id.ndjson":             "a user's text start on the id of a tool call with no parent: the reference's reducer opens an assistant message under the call's id for it, so it would append the user's text to the assistant's proposal",
	"call-in-user-message.ndjson":         "a tool call whose parentMessageId names a user's message: a call is proposed in an assistant message; the reference's reducer warns and puts the call in an assistant message of its own, so the two would show it in different messages",
	"start-on-kept-activity.ndjson":       "a user's text start on the id of an activity that a messages snapshot holding no activity kept, as the reference's reducer keeps it: the id still names the activity; that reducer would skip the user's text while the record sends it",
	"start-on-kept-input-activity.ndjson": "a user's text start on the id of an activity of the run's input that a messages snapshot holding no activity kept, as the reference's reducer keeps it though the result does not show it: the id still names the activity; that reducer would skip the user's text while the record sends it",
}

// nodeVerifier returns the folder of the Node script, or skips.
func nodeVerifier(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		repotest.MissingPart(t, "node is not installed: the differential check needs Node.js and `make agui-node`")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "node"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@ag-ui", "client")); err != nil {
		repotest.MissingPart(t, "@ag-ui/client is not installed: run `make agui-node` (npm ci in agui/testdata/node)")
	}
	return dir
}

// nodeResult is verify.mjs's line for one file; Messages, only in its
// apply mode, is the conversation the reference client's reducer holds at
// the end.
type nodeResult struct {
	File     string        `json:"file"`
	Outcome  string        `json:"outcome"`
	Error    string        `json:"error"`
	Messages []nodeMessage `json:"messages"`
}

type nodeMessage struct {
	ID      string  `json:"id"`
	Role    string  `json:"role"`
	Content *string `json:"content"`
}

// runNode runs verify.mjs in mode (check or apply) over files.
func runNode(t *testing.T, dir, mode string, files []string) map[string]nodeResult {
	t.Helper()
	cmd := exec.Command("node", append([]string{"verify.mjs", mode}, files...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node verify.mjs %s: %v\n%s", mode, err, stderr.Bytes())
	}
	res := map[string]nodeResult{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r nodeResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("node output %q: %v", sc.Text(), err)
		}
		res[r.File] = r
	}
	return res
}

// diffRecords gathers the records of the differential check (the own ones
// in testdata/diff and, where ../shared is present, the conformance
// streams), writes each to a file of its own, and returns their names in
// order, their bytes and the file of each.
func diffRecords(t *testing.T) (names []string, records map[string][]byte, paths map[string]string) {
	t.Helper()
	records = map[string][]byte{}
	own, _ := filepath.Glob(filepath.Join("testdata", "diff", "*"))
	for _, f := range own {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		records[filepath.Base(f)] = data
	}
	if _, err := os.Stat(filepath.Join("..", "..", "shared", "corpus")); err == nil {
		for _, cs := range loadConformance(t) {
			records["conformance/"+cs.Name] = streamBytes(cs)
		}
	} else {
		t.Log("../shared is absent: the conformance streams are left out, the own records are compared")
	}
	tmp := t.TempDir()
	paths = map[string]string{}
	for name, data := range records {
		p := filepath.Join(tmp, filepath.Base(name)+".record")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
		paths[name] = p
	}
	sort.Strings(names)
	return names, records, paths
}

func TestDifferentialNode(t *testing.T) {
	t.Parallel()
	dir := nodeVerifier(t)
	names, records, paths := diffRecords(t)
	agree := 0
	againstNode(t, dir, "check", names, records, paths, func(name string, ref nodeResult, res *Result) {
		ours := "completed"
		if !res.Accepted {
			ours = "failed"
		}
		why, listed := deliberate[name]
		switch {
		case ours == ref.Outcome && listed:
			t.Errorf("%s: listed as a deliberate difference, but both now say %s", name, ours)
		case ours == ref.Outcome:
			agree++
		case listed:
			t.Logf("deliberate: %s: agui %s, reference %s — %s", name, ours, ref.Outcome, why)
		default:
			t.Errorf("%s: agui %s %v, reference %s %q", name, ours, res.Findings, ref.Outcome, ref.Error)
		}
	})
	t.Logf("%d records: %d agree, %d differ deliberately", len(names), agree, len(names)-agree)
}

// againstNode runs verify.mjs in mode (check or apply) over the records
// named and calls each with a record's name, the reference's result and
// the checker's under AG-UI 1.1; a record either side gives nothing for
// is an error instead.
func againstNode(t *testing.T, dir, mode string, names []string, records map[string][]byte, paths map[string]string, each func(name string, ref nodeResult, res *Result)) {
	t.Helper()
	var files []string
	for _, name := range names {
		files = append(files, paths[name])
	}
	byFile := runNode(t, dir, mode, files)
	for _, name := range names {
		ref, ok := byFile[paths[name]]
		if !ok {
			t.Errorf("%s: no result from node", name)
			continue
		}
		res, err := Check(records[name], Options{Profile: v11, Source: name})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		each(name, ref, res)
	}
}

// orderDiffers lists the records both accept whose conversation the
// result shows in another order, or under other roles, than the reference
// client's reducer holds it, each with the reason it is deliberate; a
// listed record that agrees fails, as for deliberate.
var orderDiffers = map[string]string{}

// shownOrder returns, as "id:role" strings, the messages of the reference's
// conversation whose ids the result shows, in the reference's order, and
// the result's own messages the same way. Where the reference holds more
// messages under an id than the result shows (a tool call with no parent
// on the id of a message opens another under it), the first ones are
// taken: an id names the first message the reference holds under it.
func shownOrder(ref []nodeMessage, shown []Message) (theirs, ours []string) {
	count := make(map[string]int, len(shown))
	for _, m := range shown {
		count[m.ID]++
		ours = append(ours, m.ID+":"+m.Role)
	}
	for _, m := range ref {
		if count[m.ID] > 0 {
			count[m.ID]--
			theirs = append(theirs, m.ID+":"+m.Role)
		}
	}
	return theirs, ours
}

// The conversation the result shows is the reference client's, less what
// the result shows elsewhere (a tool result beside its call) or not at all
// (the run's input, a message a tool call opened that no text named): for
// every record both accept, the ids of Result.Messages, in order, are the
// reference's final list filtered to those ids, each under the
// reference's role.
func TestDifferentialOrder(t *testing.T) {
	t.Parallel()
	dir := nodeVerifier(t)
	names, records, paths := diffRecords(t)
	compared, agree := compareOrder(t, dir, names, records, paths, orderDiffers)
	for name := range orderDiffers {
		if _, ok := records[name]; !ok {
			t.Errorf("%s: listed as a deliberate difference of order, but no such record", name)
		}
	}
	t.Logf("%d records both accept: %d agree, %d differ deliberately", compared, agree, compared-agree)
}

// compareOrder runs the reference's reducer over the records and compares
// the conversation of each that both accept with the result's (see
// TestDifferentialOrder); listed are the deliberate differences.
func compareOrder(t *testing.T, dir string, names []string, records map[string][]byte, paths map[string]string, listed map[string]string) (compared, agree int) {
	t.Helper()
	againstNode(t, dir, "apply", names, records, paths, func(name string, ref nodeResult, res *Result) {
		if !res.Accepted || ref.Outcome != "completed" {
			return // TestDifferentialNode compares the outcomes
		}
		compared++
		theirs, ours := shownOrder(ref.Messages, res.Messages)
		same := slices.Equal(theirs, ours)
		why, isListed := listed[name]
		switch {
		case same && isListed:
			t.Errorf("%s: listed as a deliberate difference of order, but both now show %v", name, ours)
		case same:
			agree++
		case isListed:
			t.Logf("deliberate: %s: agui %v, reference %v — %s", name, ours, theirs, why)
		default:
			t.Errorf("%s: agui shows %v, the reference holds them as %v\n%s", name, ours, theirs, records[name])
		}
	})
	return compared, agree
}

// orderRecords makes n records from a seed, each a run that mixes what
// places a message in the conversation: a run input, text and reasoning
// messages, tool calls with a parent, without one or on the id of a
// message, results for any call, activity snapshots and messages
// snapshots, over a few ids, so that they meet one another.
func orderRecords(seed uint64, n int) map[string][]byte {
	r := rand.New(rand.NewPCG(seed, seed))
	ids := []string{"a", "b", "c", "u", "k1"}
	calls := []string{"k1", "k2", "k3"}
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	message := func(text string) map[string]any {
		id := pick(ids)
		switch r.IntN(5) {
		case 0:
			return map[string]any{"id": id, "role": "user", "content": text}
		case 1:
			m := map[string]any{"id": id, "role": "assistant", "content": text}
			if r.IntN(2) == 0 {
				m["toolCalls"] = []any{map[string]any{"id": pick(calls), "type": "function", "function": map[string]any{"name": "f", "arguments": "{}"}}}
			}
			return m
		case 2:
			return map[string]any{"id": id, "role": "activity", "activityType": pick([]string{"PLAN", "SEARCH"}), "content": map[string]any{}}
		case 3:
			return map[string]any{"id": id, "role": "reasoning", "content": text}
		}
		return map[string]any{"id": id, "role": "tool", "toolCallId": pick(calls), "content": text}
	}
	out := map[string][]byte{}
	for k := 0; k < n; k++ {
		start := ev{"type": contract.EventRunStarted, "threadId": "t", "runId": "r"}
		if r.IntN(2) == 0 {
			var input []any
			for range 1 + r.IntN(3) {
				input = append(input, message("in"))
			}
			start["input"] = map[string]any{"threadId": "t", "runId": "r", "messages": input, "tools": []any{}, "context": []any{}, "state": map[string]any{}, "forwardedProps": map[string]any{}}
		}
		events := []ev{start}
		for j := range 1 + r.IntN(8) {
			switch x := r.IntN(10); {
			case x < 3:
				id := pick(ids)
				events = append(events, text(contract.EventTextMessageStart, id, "role", pick([]string{"assistant", "assistant", "user"})),
					text(contract.EventTextMessageContent, id, "delta", "x"), text(contract.EventTextMessageEnd, id))
			case x < 5:
				call := pick(calls)
				st := ev{"type": contract.EventToolCallStart, "toolCallId": call, "toolCallName": "f"}
				if r.IntN(3) > 0 {
					st["parentMessageId"] = pick(ids)
				}
				events = append(events, st, ev{"type": contract.EventToolCallEnd, "toolCallId": call})
			case x < 7:
				events = append(events, ev{"type": contract.EventToolCallResult, "messageId": fmt.Sprintf("r%d", j), "toolCallId": pick(calls), "content": "ok"})
			case x < 8:
				a := ev{"type": contract.EventActivitySnapshot, "messageId": pick(ids), "activityType": pick([]string{"PLAN", "SEARCH"}), "content": map[string]any{"n": j}}
				if r.IntN(3) == 0 {
					a["replace"] = false
				}
				events = append(events, a)
			case x < 9:
				var listed []any
				for range r.IntN(4) {
					listed = append(listed, message("s"))
				}
				events = append(events, ev{"type": contract.EventMessagesSnapshot, "messages": append([]any{}, listed...)})
			default:
				id := pick(ids)
				events = append(events, text(contract.EventReasoningMessageStart, id, "role", "reasoning"),
					text(contract.EventReasoningMessageContent, id, "delta", "y"), text(contract.EventReasoningMessageEnd, id))
			}
		}
		events = append(events, ev{"type": contract.EventRunFinished, "threadId": "t", "runId": "r"})
		var b bytes.Buffer
		for _, e := range events {
			data, _ := json.Marshal(e)
			b.Write(data)
			b.WriteByte('\n')
		}
		out[fmt.Sprintf("generated-%04d.ndjson", k)] = b.Bytes()
	}
	return out
}

// The same comparison over records made to make the messages of a
// conversation meet: an input's, a call's, a result's, a snapshot's under
// one another's ids, in any order. None may differ.
func TestDifferentialOrderGenerated(t *testing.T) {
	t.Parallel()
	dir := nodeVerifier(t)
	records := orderRecords(38, 2000)
	tmp := t.TempDir()
	var names []string
	paths := map[string]string{}
	for name, data := range records {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
		paths[name] = p
	}
	sort.Strings(names)
	compared, agree := compareOrder(t, dir, names, records, paths, nil)
	if compared < len(names)/3 {
		t.Errorf("only %d of %d generated records are accepted by both: the comparison says too little", compared, len(names))
	}
	t.Logf("%d generated records, %d both accept, %d agree", len(names), compared, agree)
}

// Every deliberate difference has its row in the how-to's table, in both
// languages, and the table lists no other record: the list above and the
// page a user reads cannot drift apart.
func TestDeliberateDifferencesDocumented(t *testing.T) {
	for _, page := range []string{"../Docs/en/how-to/ag-ui.md", "../Docs/ru/how-to/ag-ui.md"} {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rows := 0
		for _, line := range bytes.Split(text, []byte("\n")) {
			if bytes.HasPrefix(line, []byte("| `")) && bytes.Contains(line, []byte(".ndjson` |")) {
				rows++
			}
		}
		for name := range deliberate {
			if !bytes.Contains(text, []byte("\n| `"+name+"` |")) {
				t.Errorf("%s: no row for %s", page, name)
			}
		}
		if rows != len(deliberate) {
			t.Errorf("%s: %d rows of records, %d deliberate differences", page, rows, len(deliberate))
		}
	}
}
