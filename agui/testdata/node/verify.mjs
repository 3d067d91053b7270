// Runs the reference AG-UI verifier of @ag-ui/client over recorded streams,
// for the differential test and the benchmark of package agui.
//
//   node verify.mjs check FILE...      one JSON line per file:
//                                      {"file", "outcome": "completed"|"failed", "error", "warnings"}
//   node verify.mjs apply FILE...      one JSON line per file:
//                                      {"file", "outcome", "error", "messages": [{"id", "role", "content"}]}
//                                      the conversation the client's reducer
//                                      (defaultApplyEvents) holds at the end
//                                      of the verified events, from an empty
//                                      input and agent; content is the text,
//                                      or null when it is not text
//   node verify.mjs bench FILE SECONDS one JSON line with the throughput
//
// A record is a JSON array of events or one event per line, as agui reads
// it. The pipeline is the one the client runs on every stream: the
// always-on compatibility boundary (retired shapes, the nulls earlier
// versions sent for absent optional members), then enforcement (strip and
// warn), chunk expansion, verification.
import { readFileSync } from "node:fs";
import { CompatibilityBoundary, defaultApplyEvents, enforceEvents, transformChunks, verifyEvents } from "@ag-ui/client";
import { from, lastValueFrom, map, toArray } from "rxjs";

let warnings = 0;
console.warn = () => { warnings++; };

function parseRecord(text) {
  const t = text.trimStart();
  if (t.startsWith("[")) return JSON.parse(t);
  return text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}

// verified returns the events of a record as the client delivers them to
// its reducer, or a failed outcome.
function verified(text) {
  let events;
  try {
    events = parseRecord(text);
  } catch (e) {
    return { failed: { outcome: "failed", error: "JSON: " + (e && e.message ? e.message : String(e)) } };
  }
  const boundary = new CompatibilityBoundary();
  const upgraded$ = from(events).pipe(map((e) => boundary.transformEvent(e)));
  return { out$: verifyEvents()(transformChunks()(enforceEvents()(upgraded$))) };
}

async function verify(text) {
  const { failed, out$ } = verified(text);
  if (failed) return failed;
  try {
    const out = await lastValueFrom(out$.pipe(toArray()), { defaultValue: [] });
    return { outcome: "completed", delivered: out.length };
  } catch (e) {
    return { outcome: "failed", error: e && e.message ? e.message : String(e) };
  }
}

// conversation runs the verified events through the client's reducer, as
// a run of an agent with no messages yet does, and returns the messages it
// holds at the end (the last mutation that set them).
async function conversation(text) {
  const { failed, out$ } = verified(text);
  if (failed) return failed;
  let events;
  try {
    events = await lastValueFrom(out$.pipe(toArray()), { defaultValue: [] });
  } catch (e) {
    return { outcome: "failed", error: e && e.message ? e.message : String(e) };
  }
  const input = { threadId: "", runId: "", messages: [], tools: [], context: [], state: {}, forwardedProps: {} };
  const agent = { messages: [], state: {} };
  let messages = [];
  try {
    const mutations = await lastValueFrom(defaultApplyEvents(input, from(events), agent, []).pipe(toArray()), { defaultValue: [] });
    for (const m of mutations) {
      if (m.messages !== undefined) messages = m.messages;
    }
  } catch (e) {
    return { outcome: "failed", error: "reducer: " + (e && e.message ? e.message : String(e)) };
  }
  return {
    outcome: "completed",
    messages: messages.map((m) => ({ id: m.id, role: m.role, content: typeof m.content === "string" ? m.content : null })),
  };
}

const [mode, ...args] = process.argv.slice(2);
if (mode === "apply") {
  for (const file of args) {
    const r = await conversation(readFileSync(file, "utf8"));
    process.stdout.write(JSON.stringify({ file, ...r }) + "\n");
  }
} else if (mode === "check") {
  for (const file of args) {
    warnings = 0;
    const r = await verify(readFileSync(file, "utf8"));
    process.stdout.write(JSON.stringify({ file, ...r, warnings }) + "\n");
  }
} else if (mode === "bench") {
  const [file, seconds] = args;
  const buf = readFileSync(file);
  const text = buf.toString("utf8");
  const first = await verify(text);
  const events = parseRecord(text).length;
  const limit = Number(seconds || 3) * 1000;
  const start = performance.now();
  let runs = 0;
  while (performance.now() - start < limit) {
    await verify(text);
    runs++;
  }
  const elapsed = (performance.now() - start) / 1000;
  process.stdout.write(JSON.stringify({
    file, outcome: first.outcome, error: first.error, events, bytes: buf.length, runs, seconds: elapsed,
    nsPerRun: (elapsed * 1e9) / runs,
    eventsPerSecond: (events * runs) / elapsed,
    mbPerSecond: (buf.length * runs) / elapsed / 1e6,
  }) + "\n");
} else {
  process.stderr.write("usage: node verify.mjs check FILE... | apply FILE... | bench FILE SECONDS\n");
  process.exit(2);
}
