// Gives every AG-UI event example of spec/ag-ui-profile.json, as the
// generated TypeScript binding types it, to the zod schemas of @ag-ui/core
// (the SDK's own EventSchemas), and prints one JSON object: each example's
// verdict on both sides, and the event types only one side names. The Go
// test TestAGUICoreSchemas compiles it with tsc --strict, runs it and
// compares: every disagreement must be one it lists with its reason.
import { EventType as SDKEventType } from "@ag-ui/core";
import { EventSchemas } from "@ag-ui/core/schemas";
import { EventType, type EventByType } from "../../../generated/agui/ts/agui.js";
import { examples, type Example } from "../../../generated/agui/ts/agui.examples.js";

interface Verdict {
  label: string;
  valid: boolean;
  sdk: boolean;
  issues: string;
}

// The union's examples: each event example with its type in front of its
// members; the examples module checks that every valid one satisfies Event.
const events: readonly Example[] = examples.filter((e) => e.type === "Event");

const verdicts: Verdict[] = events.map((e) => {
  const r = EventSchemas.safeParse(e.value);
  const issues = r.success ? "" : r.error.issues.map((i) => "/" + i.path.map(String).join("/") + ": " + i.message).join("; ");
  return { label: e.label, valid: e.valid, sdk: r.success, issues };
});

// The event types of our binding and of the SDK are the same set, or this
// does not compile; the lists printed below name any difference.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameEventTypes: Same<keyof EventByType, `${SDKEventType}`> = true;

const ours = new Set<string>(Object.values(EventType));
const theirs = new Set<string>(Object.values(SDKEventType));
console.log(
  JSON.stringify({
    sameEventTypes,
    verdicts,
    onlyOurs: [...ours].filter((t) => !theirs.has(t)).sort(),
    onlySDK: [...theirs].filter((t) => !ours.has(t)).sort(),
  }),
);
