// Starting and stopping a real `plumb serve` on a free loopback port for the end-to-end tests, and running the
// same request through `plumb run --json` (one request alone in its own process) for comparison.
// Environment: PLUMB_BINARY (the built plumb), PLUMB_CACHE_DIR (where the built-in tiny model is written),
// PLUMB_VERBOSE=1 (the server logs every request; read it with log()).
'use strict';

const { spawn, execFile } = require('node:child_process');

const PLUMB = process.env.PLUMB_BINARY;
if (!PLUMB) throw new Error('set PLUMB_BINARY to the built plumb binary (CTest does)');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Starts `plumb serve --port 0 ARGS...`, reads the port it prints, waits until /health/ready answers 200.
async function startServer(args = [], { startTimeoutMs = 180000 } = {}) {
  const verbose = process.env.PLUMB_VERBOSE ? ['-v'] : [];  // logs every request
  const proc = spawn(PLUMB, [...verbose, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  proc.on('error', (e) => { log += `spawn failed: ${e.message}\n`; });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`plumb serve did not start:\n${log}`)), startTimeoutMs);
    const read = (chunk) => {
      log += chunk;
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    proc.stdout.on('data', read);
    proc.stderr.on('data', read);
    exited.then(({ code }) => reject(new Error(`plumb serve exited with ${code} before listening:\n${log}`)));
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    const r = await fetch(`${base}/health/ready`).catch(() => null);
    if (r && r.status === 200) break;
    if (Date.now() > deadline) throw new Error(`plumb serve never became ready:\n${log}`);
    await sleep(100);
  }
  return {
    port,
    base,
    log: () => log,
    // SIGTERM, then the exit status (the server finishes or cancels what is in flight).
    async stop() {
      proc.kill('SIGTERM');
      return exited;
    },
  };
}

// The same request body through `plumb run --request - --json`: {token_ids, token_sha256, text, ...}.
// Asynchronous on purpose: a blocked event loop would keep the client's stale keep-alive connections alive.
function plumbRun(body, args = []) {
  return new Promise((resolve, reject) => {
    const child = execFile(PLUMB, ['run', '--request', '-', '--json', ...args], { maxBuffer: 64 << 20 },
      (err, stdout, stderr) => (err ? reject(new Error(`plumb run failed: ${err.message}\n${stderr}`))
                                    : resolve(JSON.parse(stdout))));
    child.stdin.end(JSON.stringify(body));
  });
}

// Reads one sample from /metrics: `name` is a metric name, optionally with the start of its labels
// ('vllm:request_success_total{finished_reason="abort"').
async function metric(base, name, headers = {}) {
  const text = await (await fetch(`${base}/metrics`, { headers })).text();
  const prefixes = name.includes('{') ? [name] : [name + '{', name + ' '];
  const line = text.split('\n').find((l) => prefixes.some((p) => l.startsWith(p)));
  if (!line) throw new Error(`metric ${name} missing`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

module.exports = { startServer, plumbRun, metric, sleep };
