// Load, bounded, on loopback: 64 concurrent streaming clients of the official openai client for 60 s
// (PLUMB_LOAD_SECONDS to change), each repeatedly sending one of a fixed set of requests and cancelling about a
// third of them at a random point. The server must not crash, every completed reply must equal its request's
// solo run (`plumb run`, token_sha256), and afterwards the metrics must return to idle (no leaked slots).
'use strict';

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { OpenAI } = require('openai');
const { startServer, plumbRun, metric, sleep } = require('./plumb_server.js');

const CLIENTS = 64;
const SECONDS = Number(process.env.PLUMB_LOAD_SECONDS || 60);

// A small deterministic generator, so a failing run can be replayed.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function requestSet(model) {
  const chat = (content, extra) => ({ kind: 'chat', body: { model, messages: [{ role: 'user', content }], ...extra } });
  const completion = (prompt, extra) => ({ kind: 'completion', body: { model, prompt, ...extra } });
  return [
    chat('Hello there', { max_tokens: 24, temperature: 0.8, seed: 1 }),
    chat('Write a haiku about rain', { max_tokens: 40, temperature: 1.0, seed: 2, top_p: 0.9 }),
    chat('Count to five', { max_tokens: 16, temperature: 0 }),
    chat('Think first', { max_tokens: 32, temperature: 0.7, seed: 4, reasoning_effort: 'high' }),
    completion('The quick brown fox', { max_tokens: 32, temperature: 0.9, seed: 5, top_k: 40 }),
    completion([5, 80, 300, 12, 900, 44], { max_tokens: 20, temperature: 1.2, seed: 6, min_p: 0.05 }),
    completion('def main():', { max_tokens: 48, temperature: 0, ignore_eos: true }),
    completion('Once upon a time', { max_tokens: 28, temperature: 1.0, draft: false, seed: 8 }),
  ];
}

async function streamOnce(client, req, cancelAfterChunks) {
  const controller = new AbortController();
  const params = { ...req.body, stream: true };
  const stream = req.kind === 'chat'
    ? await client.chat.completions.create(params, { signal: controller.signal })
    : await client.completions.create(params, { signal: controller.signal });
  let chunks = 0;
  let sha = null;
  for await (const chunk of stream) {
    if (chunk.plumb) sha = chunk.plumb.token_sha256;
    if (++chunks === cancelAfterChunks) {
      controller.abort();
      return { cancelled: true };
    }
  }
  return { cancelled: false, sha };
}

test(`${CLIENTS} streaming clients for ${SECONDS} s with random cancellations`, { timeout: (SECONDS + 400) * 1000 },
  async () => {
    const server = await startServer(['--parallel', '8', '--max-queue', '1024']);
    try {
      const client = new OpenAI({ apiKey: 'unused', baseURL: `${server.base}/v1`, maxRetries: 0, timeout: 300000 });
      const model = (await client.models.list()).data[0].id;
      const requests = requestSet(model);
      const solo = [];
      for (const r of requests) solo.push((await plumbRun(r.body)).token_sha256);

      const stats = { completed: 0, cancelled: 0, mismatched: [], failed: [] };
      const end = Date.now() + SECONDS * 1000;
      const worker = async (id) => {
        const random = rng(1000 + id);
        while (Date.now() < end) {
          const which = Math.floor(random() * requests.length);
          const cancel = random() < 0.33 ? 1 + Math.floor(random() * 6) : 0;
          try {
            const r = await streamOnce(client, requests[which], cancel);
            if (r.cancelled) {
              stats.cancelled++;
            } else {
              stats.completed++;
              if (r.sha !== solo[which]) stats.mismatched.push({ which, got: r.sha, want: solo[which] });
            }
          } catch (e) {
            stats.failed.push(`${e.status ?? ''} ${e.message} ${e.cause?.code ?? ''}`);
          }
        }
      };
      await Promise.all(Array.from({ length: CLIENTS }, (_, id) => worker(id)));
      console.log(`load: ${stats.completed} completed, ${stats.cancelled} cancelled, ` +
                  `${stats.failed.length} failed, ${stats.mismatched.length} mismatched in ${SECONDS} s`);

      assert.deepEqual(stats.failed, []);
      assert.deepEqual(stats.mismatched, []);
      assert.ok(stats.completed >= CLIENTS, `only ${stats.completed} replies completed`);
      assert.ok(stats.cancelled > 0);

      // Back to idle: no request running, waiting or held, no stream open.
      const deadline = Date.now() + 20000;
      for (;;) {
        const busy = await Promise.all(['vllm:num_requests_running', 'vllm:num_requests_waiting',
                                        'plumb:requests_in_flight', 'plumb:streams_open']
          .map((name) => metric(server.base, name)));
        if (busy.every((v) => v === 0)) break;
        assert.ok(Date.now() < deadline, `not idle after the load: ${busy}`);
        await sleep(100);
      }
      // Still serving, and still exact.
      const after = await client.chat.completions.create(requests[0].body);
      assert.equal(after.plumb.token_sha256, solo[0]);
    } finally {
      const { code } = await server.stop();
      assert.equal(code, 0);
    }
  });
