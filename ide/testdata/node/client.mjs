// An independent client of `eska ide --stdio`, built on vscode-jsonrpc
// (the JSON-RPC library of VS Code) rather than on contractkit's own
// framing or DTOs. Usage: node client.mjs /path/to/eska
// It prints one JSON line with what it saw and exits non-zero on failure.
import { spawn } from 'node:child_process';
import * as rpc from 'vscode-jsonrpc/node.js';

const bin = process.argv[2];
if (!bin) {
  console.error('usage: node client.mjs /path/to/eska');
  process.exit(2);
}

const child = spawn(bin, ['ide', '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
let stderr = '';
child.stderr.on('data', (d) => { stderr += d; });
const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));

const conn = rpc.createMessageConnection(
  new rpc.StreamMessageReader(child.stdout),
  new rpc.StreamMessageWriter(child.stdin),
);
conn.listen();

const report = {};
try {
  const init = await conn.sendRequest('initialize', {
    apiVersion: { major: 1, minor: 0 },
    client: { name: 'Проверочный клиент', version: '1.0' },
    locale: 'ru-RU',
  });
  if (init.server?.name !== 'eska' || init.apiVersion?.minor !== 0 || init.limits?.maxBatchItems !== 16) {
    throw new Error('unexpected initialize result ' + JSON.stringify(init));
  }
  report.initialize = 'ok';

  // A request cancelled as soon as it is sent: the server answers it once,
  // with the cancelled error if the cancellation arrived first, or with its
  // normal answer (here unknown_session) if the request had already run.
  const source = new rpc.CancellationTokenSource();
  const pending = conn.sendRequest('metadata/root', { sessionId: 's1', projectId: 'p1', generation: '0' }, source.token);
  source.cancel();
  try {
    await pending;
    throw new Error('metadata/root without a session succeeded');
  } catch (e) {
    const kind = e?.data?.kind;
    if (e?.code !== -32000 || (kind !== 'cancelled' && kind !== 'unknown_session')) {
      throw new Error('cancelled request answered ' + JSON.stringify({ code: e?.code, message: e?.message, data: e?.data }));
    }
    report.cancelled = kind;
  }

  const shut = await conn.sendRequest('shutdown', {});
  if (shut !== null) throw new Error('shutdown answered ' + JSON.stringify(shut));
  report.shutdown = 'ok';
  await conn.sendNotification('exit');
  const code = await exited;
  report.exitCode = code;
  if (code !== 0) throw new Error('exit code ' + code + ', stderr: ' + stderr);
  console.log(JSON.stringify(report));
  process.exit(0);
} catch (e) {
  console.log(JSON.stringify({ ...report, error: String(e?.message ?? e) }));
  child.kill();
  process.exit(1);
}
