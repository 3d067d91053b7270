// An independent client of `eska ide --stdio`, built on vscode-jsonrpc
// (the JSON-RPC library of VS Code) and on the generated TypeScript
// binding of spec/ide-api.json, not on contractkit's Go framing or DTOs.
// The Go test compiles it with tsc --strict before it runs it, so a type
// error in the generated modules, or a contract change this client no
// longer fits, fails the build of the client.
//
// Usage: node client.js /path/to/eska
// It prints one JSON line with what it saw and exits non-zero on failure.
import { spawn } from "node:child_process";
import * as rpc from "vscode-jsonrpc/node.js";
import { Methods, Notifications } from "../../../generated/ide/ts/ide.jsonrpc.js";
import {
  APIMajor,
  DomainErrorKind,
  ErrorCode,
  Locale,
  MaxBatchItems,
  type DomainErrorData,
  type InitializeResult,
} from "../../../generated/ide/ts/ide.js";

interface Report {
  initialize?: "ok";
  cancelled?: DomainErrorKind;
  shutdown?: "ok";
  exitCode?: number | null;
  error?: string;
}

const bin = process.argv[2];
if (!bin) {
  console.error("usage: node client.js /path/to/eska");
  process.exit(2);
}

const child = spawn(bin, ["ide", "--stdio"], { stdio: ["pipe", "pipe", "pipe"] });
let stderr = "";
child.stderr.on("data", (d: Buffer) => {
  stderr += d.toString();
});
const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));

const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
conn.listen();

const report: Report = {};
try {
  // The result is typed by the descriptor: a member the contract drops
  // is a compile error here, not a runtime surprise.
  const init: InitializeResult = await conn.sendRequest(Methods.initialize, {
    apiVersion: { major: APIMajor, minor: 0 },
    client: { name: "Проверочный клиент", version: "1.0" },
    locale: Locale.RuRU,
  });
  if (init.server.name !== "eska" || init.apiVersion.minor !== 0 || init.limits.maxBatchItems !== MaxBatchItems) {
    throw new Error("unexpected initialize result " + JSON.stringify(init));
  }
  report.initialize = "ok";

  // A request cancelled as soon as it is sent: the server answers it once,
  // with the cancelled error if the cancellation arrived first, or with its
  // normal answer (here unknown_session) if the request had already run.
  const source = new rpc.CancellationTokenSource();
  const pending = conn.sendRequest(Methods.metadataRoot, { sessionId: "s1", projectId: "p1", generation: "0" }, source.token);
  source.cancel();
  try {
    await pending;
    throw new Error("metadata/root without a session succeeded");
  } catch (e) {
    if (!(e instanceof rpc.ResponseError)) throw e;
    const data = e.data as DomainErrorData | undefined;
    const kind = data?.kind;
    if (e.code !== ErrorCode.RequestFailed || (kind !== DomainErrorKind.Cancelled && kind !== DomainErrorKind.UnknownSession)) {
      throw new Error("cancelled request answered " + JSON.stringify({ code: e.code, message: e.message, data: e.data }));
    }
    report.cancelled = kind;
  }

  const shut: null = await conn.sendRequest(Methods.shutdown, {});
  if (shut !== null) throw new Error("shutdown answered " + JSON.stringify(shut));
  report.shutdown = "ok";
  await conn.sendNotification(Notifications.exit);
  const code = await exited;
  report.exitCode = code;
  if (code !== 0) throw new Error("exit code " + code + ", stderr: " + stderr);
  console.log(JSON.stringify(report));
  process.exit(0);
} catch (e) {
  console.log(JSON.stringify({ ...report, error: String(e instanceof Error ? e.message : e) }));
  child.kill();
  process.exit(1);
}
