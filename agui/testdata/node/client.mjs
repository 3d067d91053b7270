// Runs one run with @ag-ui/client's HttpAgent against URL and prints one
// JSON line: whether the run completed, its error if not, and the length
// and SHA-256 of the bytes the client received, read through a tee of the
// fetch it makes.
//
//   node client.mjs URL
import { createHash } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";

console.warn = () => {};
console.error = () => {};
const received = [];
let readError = "";
let copied = Promise.resolve();
const teeFetch = async (url, init) => {
  const resp = await fetch(url, init);
  const [mine, theirs] = resp.body.tee();
  const reader = theirs.getReader();
  copied = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received.push(Buffer.from(value));
      }
    } catch (e) {
      readError = String(e?.cause?.message ?? e?.message ?? e);
    }
  })();
  return new Response(mine, { status: resp.status, statusText: resp.statusText, headers: resp.headers });
};

const agent = new HttpAgent({ url: process.argv[2], fetch: teeFetch });
let outcome = "completed", error = "";
try {
  await agent.runAgent();
} catch (e) {
  outcome = "failed";
  error = String(e?.message ?? e);
}
await copied;
const bytes = Buffer.concat(received);
console.log(JSON.stringify({ outcome, error, readError, length: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex"), messages: agent.messages.length }));
