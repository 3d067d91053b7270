// An independent MCP client of aicontrol-mcp, built on the TypeScript MCP
// SDK rather than on contractkit's Go code. It starts the adapter over
// stdio against a running aicontrol-sample, as an MCP host would, and
// checks what a model would rely on.
//
// Usage: AICONTROL_TOKEN=... node client.mjs /path/to/aicontrol-mcp ACTIONS_FILE PORT
// It prints one JSON line with what it saw and exits non-zero on failure.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const [bin, actionsFile, port] = process.argv.slice(2);
const token = process.env.AICONTROL_TOKEN;
if (!bin || !actionsFile || !port || !token) {
  console.error('usage: AICONTROL_TOKEN=... node client.mjs /path/to/aicontrol-mcp ACTIONS_FILE PORT');
  process.exit(2);
}

// Recording passes every message through and keeps a copy, so the token
// can be searched for in all of them.
class Recording {
  constructor(inner) {
    this.inner = inner;
    this.seen = [];
  }
  async start() {
    this.inner.onmessage = (m, extra) => {
      this.seen.push(m);
      this.onmessage?.(m, extra);
    };
    this.inner.onerror = (e) => this.onerror?.(e);
    this.inner.onclose = () => this.onclose?.();
    return this.inner.start();
  }
  async send(m, options) {
    this.seen.push(m);
    return this.inner.send(m, options);
  }
  async close() {
    return this.inner.close();
  }
  setProtocolVersion(v) {
    this.inner.setProtocolVersion?.(v);
  }
}

const inner = new StdioClientTransport({
  command: bin,
  args: ['--actions', actionsFile, '--port', port, '--refresh', '20ms'],
  env: { AICONTROL_TOKEN: token },
  stderr: 'pipe',
});
let stderr = '';
inner.stderr.on('data', (d) => { stderr += d; });
const transport = new Recording(inner);
const client = new Client({ name: 'aicontrol-mcp-typescript-check', version: '1.0.0' });

let changes = 0;
const changeWaiters = [];
client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
  changes++;
  for (const w of changeWaiters.splice(0)) w();
});
// changesReach resolves once n list_changed notifications have arrived.
function changesReach(n) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${changes} list_changed notifications, want ${n}`)), 10000);
    const check = () => {
      if (changes >= n) {
        clearTimeout(timer);
        resolve();
      } else {
        changeWaiters.push(check);
      }
    };
    check();
  });
}

function expect(cond, what, value) {
  if (!cond) throw new Error(what + ': ' + JSON.stringify(value));
}

async function toolNames() {
  return (await client.listTools()).tools.map((t) => t.name).sort();
}

const report = {};
try {
  await client.connect(transport);
  report.server = client.getServerVersion()?.name;
  expect(report.server === 'aicontrol-mcp', 'server name', report.server);

  report.tools = await toolNames();
  expect(JSON.stringify(report.tools) === JSON.stringify(['echo', 'fail', 'move', 'observe', 'wait']), 'tools', report.tools);

  // move with x/y: the SDK also checks structuredContent against the
  // tool's outputSchema.
  const move = await client.callTool({ name: 'move', arguments: { x: 3, y: 4 } });
  const moved = move.structuredContent;
  expect(!move.isError && moved.success === true && moved.message === 'moved' && moved.action === 'move', 'move', move);
  report.move = { commandSeq: moved.commandSeq, message: moved.message };

  const obs = await client.callTool({ name: 'observe', arguments: {} });
  const agent = obs.structuredContent.observation.agent;
  expect(agent.x === 3 && agent.y === 4 && obs.structuredContent.observation.schemaVersion === 1, 'observe', obs.structuredContent);

  // Invalid arguments are tool errors, and the listener never sees them:
  // the next command is numbered right after move.
  const invalid = [
    ['move', { x: 'three', y: 4 }],
    ['move', { x: 3 }],
    ['move', { x: 3, y: 4, z: 5 }],
    ['wait', { intArg: 10001 }],
    ['echo', { stringArg: 5 }],
  ];
  report.invalid = [];
  for (const [name, args] of invalid) {
    const r = await client.callTool({ name, arguments: args });
    expect(r.isError === true && /invalid arguments/.test(r.content[0].text), 'invalid ' + name, r);
    report.invalid.push(r.content[0].text);
  }
  const echo = await client.callTool({ name: 'echo', arguments: { stringArg: 'после проверки' } });
  expect(echo.structuredContent.commandSeq === moved.commandSeq + 1 && echo.structuredContent.message === 'после проверки', 'echo after invalid calls', echo.structuredContent);

  const res = await client.readResource({ uri: 'aicontrol://endpoint' });
  const info = JSON.parse(res.contents[0].text);
  expect(info.connected && info.protocolVersion === 1 && info.schemaVersion === 1 && info.project.revision === 'sample-1', 'endpoint', info);
  expect(info.listener.queuedCommands === 0 && !info.listener.lastError, 'listener status after invalid calls', info.listener);
  report.endpoint = { endpoint: info.endpoint, listener: { queuedCommands: info.listener.queuedCommands, lastError: info.listener.lastError ?? '' } };

  // wait makes the agent rest: move leaves availableActions, and comes back.
  const before = changes;
  const resting = client.callTool({ name: 'wait', arguments: { intArg: 400 } });
  await changesReach(before + 1);
  const whileResting = await toolNames();
  expect(!whileResting.includes('move') && whileResting.includes('wait'), 'tools while resting', whileResting);
  const rested = await resting;
  expect(rested.structuredContent.message === 'waited 400 ms' && rested.structuredContent.commandSeq === echo.structuredContent.commandSeq + 1, 'wait', rested.structuredContent);
  await changesReach(before + 2);
  const afterRest = await toolNames();
  expect(afterRest.includes('move'), 'tools after resting', afterRest);
  report.listChanged = { whileResting, afterRest };

  // A cancelled slow call; the call after it spans the cancelled
  // command's completion and must still get its own.
  const ac = new AbortController();
  const cancelled = client.callTool({ name: 'wait', arguments: { intArg: 700 } }, undefined, { signal: ac.signal });
  setTimeout(() => ac.abort(), 150);
  try {
    await cancelled;
    throw new Error('the cancelled call returned a result');
  } catch (e) {
    expect(/AbortError|aborted/.test(String(e?.message ?? e)), 'cancellation', String(e));
    report.cancelled = String(e?.message ?? e);
  }
  const next = await client.callTool({ name: 'wait', arguments: { intArg: 1000 } });
  expect(next.structuredContent.message === 'waited 1000 ms' && next.structuredContent.commandSeq === rested.structuredContent.commandSeq + 2, 'call after a cancelled one', next.structuredContent);
  report.afterCancel = { commandSeq: next.structuredContent.commandSeq, message: next.structuredContent.message };

  await client.close();
  report.messages = transport.seen.length;
  report.stderrBytes = stderr.length;
  expect(report.messages > 20 && /connected/.test(stderr), 'recorded output', { messages: report.messages, stderr });
  report.tokenInMessages = JSON.stringify(transport.seen).includes(token);
  report.tokenInStderr = stderr.includes(token);
  expect(!report.tokenInMessages && !report.tokenInStderr, 'token absent', report);
  console.log(JSON.stringify(report));
  process.exit(0);
} catch (e) {
  console.log(JSON.stringify({ ...report, error: String(e?.message ?? e), stderr }));
  await client.close().catch(() => {});
  process.exit(1);
}
