// An AG-UI agent for the live tests of agui: Node's http module serves
// recorded streams over SSE, encoded with the official SDK's EventEncoder.
//
//   node agent.mjs DIR    serves on 127.0.0.1 (a free port), prints {"port":N}
//
// POST /encoder/NAME   the events of DIR/NAME (a JSON array, one event per
//                      line, or a conformance fixture with a "stream"),
//                      each parsed and encoded by EventEncoder
// POST /raw/NAME       the lines of DIR/NAME exactly as written, framed as
//                      EventEncoder frames an event ("data: ", the text, a
//                      blank line): a hostile record is what JSON.parse
//                      could not carry through (duplicate names, lone
//                      surrogates), so it is sent as its bytes
//
// The answer is written in pieces of 1, 2, 3, 5 and 7 bytes in turn, so
// that pieces end inside multibyte characters. The process ends when its
// standard input closes, or after two minutes.
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { join, basename } from "node:path";
import { EventEncoder } from "@ag-ui/encoder";

const dir = process.argv[2];
const pieces = [1, 2, 3, 5, 7];

function events(text) {
  const t = text.trimStart();
  if (t.startsWith("[")) return JSON.parse(t);
  if (t.startsWith("{") && !t.includes("\n{")) {
    const doc = JSON.parse(t);
    if (Array.isArray(doc.stream)) return doc.stream;
  }
  return text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}

function body(mode, name, accept) {
  const text = readFileSync(join(dir, basename(name)), "utf8");
  if (mode === "raw") {
    const lines = Buffer.from(readFileSync(join(dir, basename(name)))).toString("latin1").split("\n").filter((l) => l.trim() !== "");
    return Buffer.concat(lines.map((l) => Buffer.concat([Buffer.from("data: "), Buffer.from(l, "latin1"), Buffer.from("\n\n")])));
  }
  const encoder = new EventEncoder({ accept });
  return Buffer.concat(events(text).map((e) => Buffer.from(encoder.encode(e), "utf8")));
}

const server = createServer((req, res) => {
  let chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const [, mode, name] = req.url.split("?")[0].split("/");
    let out;
    try {
      out = body(mode, decodeURIComponent(name ?? ""), req.headers.accept);
    } catch (e) {
      res.writeHead(404, { "Content-Type": "text/plain" });
      res.end(String(e));
      return;
    }
    res.writeHead(200, { "Content-Type": new EventEncoder({ accept: req.headers.accept }).getContentType(), "Cache-Control": "no-cache" });
    let k = 0;
    const next = () => {
      if (out.length === 0) return res.end();
      const n = Math.min(out.length, pieces[k++ % pieces.length]);
      const piece = out.subarray(0, n);
      out = out.subarray(n);
      if (res.write(piece)) setImmediate(next);
      else res.once("drain", next);
    };
    next();
  });
});

server.listen(0, "127.0.0.1", () => {
  console.log(JSON.stringify({ port: server.address().port }));
});
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
setTimeout(() => process.exit(0), 120_000).unref();
