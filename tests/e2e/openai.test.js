// End to end with the official openai npm client against a real `plumb serve` (built-in tiny model, loopback,
// an API key): models, chat whole and streamed (with usage), completions from token ids, a client abort that
// frees its slot, a tool-call round trip, seeded reproducibility, OpenAI-shaped errors. Every reply's
// token_sha256 must equal the same request run alone through `plumb run`.
'use strict';

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { OpenAI } = require('openai');
const { startServer, plumbRun, metric, sleep } = require('./plumb_server.js');

const KEY = 'e2e-key';
let server, client, model;
const auth = { Authorization: `Bearer ${KEY}` };

before(async () => {
  server = await startServer(['--api-key', KEY, '--parallel', '4']);
  client = new OpenAI({ apiKey: KEY, baseURL: `${server.base}/v1`, maxRetries: 0, timeout: 120000 });
  model = (await client.models.list()).data[0].id;
});

after(async () => {
  const { code } = await server.stop();
  assert.equal(code, 0, 'plumb serve exits 0 on SIGTERM');
});

const chatBody = () => ({
  model,
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Name three colours.' },
  ],
  max_tokens: 24,
  temperature: 0.9,
  seed: 5,
});

test('lists the served model', async () => {
  const list = await client.models.list();
  assert.equal(list.data.length, 1);
  assert.equal(list.data[0].object, 'model');
  assert.equal((await client.models.retrieve(model)).id, model);
});

test('chat, not streamed: OpenAI shape, and the tokens of plumb run', async () => {
  const body = chatBody();
  const r = await client.chat.completions.create(body);
  assert.equal(r.object, 'chat.completion');
  assert.equal(r.model, model);
  assert.equal(r.choices.length, 1);
  assert.equal(r.choices[0].message.role, 'assistant');
  assert.ok(['stop', 'length'].includes(r.choices[0].finish_reason));
  const solo = await plumbRun(body);
  assert.equal(r.plumb.token_sha256, solo.token_sha256);
  assert.equal(r.usage.completion_tokens, solo.token_ids.length);
  assert.equal(r.usage.prompt_tokens, solo.prompt_tokens);
  assert.equal(r.usage.total_tokens, r.usage.prompt_tokens + r.usage.completion_tokens);
  assert.equal(typeof r.usage.prompt_tokens_details.cached_tokens, 'number');
});

test('chat, streamed with include_usage: chunks join to the whole reply, usage comes last', async () => {
  const body = chatBody();
  const whole = await client.chat.completions.create(body);
  const stream = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  const last = chunks[chunks.length - 1];
  assert.deepEqual(last.choices, []);
  assert.deepEqual(last.usage, whole.usage);
  const content = chunks.flatMap((c) => c.choices.map((ch) => ch.delta.content ?? '')).join('');
  assert.equal(content, whole.choices[0].message.content ?? '');
  const finish = chunks.find((c) => c.choices.length && c.choices[0].finish_reason);
  assert.equal(finish.choices[0].finish_reason, whole.choices[0].finish_reason);
  assert.equal(finish.plumb.token_sha256, (await plumbRun(body)).token_sha256);
});

test('completions from token ids equal plumb run', async () => {
  const body = { model, prompt: [17, 230, 41, 560, 99, 7, 312], max_tokens: 16, temperature: 0 };
  const r = await client.completions.create(body);
  assert.equal(r.object, 'text_completion');
  const solo = await plumbRun(body);
  assert.equal(r.plumb.token_sha256, solo.token_sha256);
  assert.equal(r.choices[0].text, solo.text);
  assert.equal(r.usage.prompt_tokens, 7);
});

test('a client that aborts mid-stream frees its slot', async () => {
  const abortsBefore = await metric(server.base, 'vllm:request_success_total{finished_reason="abort"', auth);
  const controller = new AbortController();
  const stream = await client.completions.create(
    { model, prompt: 'Once upon a time', max_tokens: 4000, ignore_eos: true, stream: true },
    { signal: controller.signal },
  );
  let seen = 0;
  // The client drops the connection after three chunks; the server must notice.
  for await (const chunk of stream) {
    assert.equal(chunk.choices[0].finish_reason, null);
    if (++seen === 3) {
      controller.abort();
      break;
    }
  }
  const deadline = Date.now() + 15000;
  while ((await metric(server.base, 'vllm:num_requests_running', auth)) !== 0 ||
         (await metric(server.base, 'plumb:requests_in_flight', auth)) !== 0) {
    assert.ok(Date.now() < deadline, 'the aborted request still holds its slot');
    await sleep(50);
  }
  assert.equal(await metric(server.base, 'vllm:request_success_total{finished_reason="abort"', auth), abortsBefore + 1);
  const after = await client.completions.create({ model, prompt: 'Hi', max_tokens: 4 });
  assert.equal(after.usage.completion_tokens > 0, true);
});

test('tool-call round trip: tools offered, the call and its result sent back', async () => {
  const tools = [{
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  }];
  const first = { model, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools, tool_choice: 'auto',
                  max_tokens: 16, seed: 3 };
  const r1 = await client.chat.completions.create(first);
  assert.equal(r1.plumb.token_sha256, (await plumbRun(first)).token_sha256);
  const calls = r1.choices[0].message.tool_calls ?? [];
  for (const c of calls) assert.equal(c.type, 'function');

  const messages = [
    ...first.messages,
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function',
      function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: '{"sky": "sunny"}' },
  ];
  const second = { ...first, messages };
  const r2 = await client.chat.completions.create(second);
  assert.equal(r2.object, 'chat.completion');
  assert.equal(r2.plumb.token_sha256, (await plumbRun(second)).token_sha256);
  // The prompt carried the call (DSML) and the result: its text, read back through /tokenize and /detokenize.
  const tok = await (await fetch(`${server.base}/tokenize`, {
    method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ messages }),
  })).json();
  const text = await (await fetch(`${server.base}/detokenize`, {
    method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ tokens: tok.tokens }),
  })).json();
  assert.match(text.prompt, /<tool_result>\{"sky": "sunny"\}<\/tool_result>/);
  assert.match(text.prompt, /invoke name="get_weather"/);
  assert.ok(r2.usage.prompt_tokens > tok.count, 'the tools block adds to the prompt');
});

test('seeded requests are reproducible, alone and side by side', async () => {
  const body = { ...chatBody(), temperature: 1.0, seed: 42, max_tokens: 20 };
  const a = await client.chat.completions.create(body);
  const side = await Promise.all([1, 2, 3, 4].map(() => client.chat.completions.create(body)));
  for (const r of side) {
    assert.equal(r.plumb.token_sha256, a.plumb.token_sha256);
    assert.equal(r.choices[0].message.content, a.choices[0].message.content);
  }
  const other = await client.chat.completions.create({ ...body, seed: 43 });
  assert.notEqual(other.plumb.token_sha256, a.plumb.token_sha256);
});

test('errors come back as OpenAI errors', async () => {
  await assert.rejects(client.chat.completions.create({ ...chatBody(), n: 2 }), (e) => {
    assert.equal(e.status, 400);
    assert.equal(e.error.type, 'invalid_request_error');
    assert.equal(e.error.param, 'n');
    return true;
  });
  await assert.rejects(client.chat.completions.create({ ...chatBody(), model: 'no-such-model' }), (e) => {
    assert.equal(e.status, 404);
    assert.equal(e.error.code, 'model_not_found');
    return true;
  });
  await assert.rejects(client.completions.create({ model, prompt: 'x', max_tokens: 10000000 }), (e) => {
    assert.equal(e.status, 400);
    assert.equal(e.error.code, 'context_length_exceeded');
    return true;
  });
  const stranger = new OpenAI({ apiKey: 'wrong', baseURL: `${server.base}/v1`, maxRetries: 0 });
  await assert.rejects(stranger.models.list(), (e) => {
    assert.equal(e.status, 401);
    assert.equal(e.error.code, 'invalid_api_key');
    return true;
  });
  const health = await fetch(`${server.base}/health`);
  assert.equal(health.status, 200, '/health needs no key');
});
