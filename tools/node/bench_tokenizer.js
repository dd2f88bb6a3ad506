// The HF side of tools/bench-tokenizer.sh: encodes a file with the official HF tokenizers library (npm
// `tokenizers`, native Rust binding, no added special tokens, one call at a time: one thread) several times
// and prints the best speed as JSON, with the SHA-256 of the ids (little-endian uint32) to compare with plumb's.
// With CHUNK_BYTES > 0 the file is encoded in calls of about that many bytes, each cut after a newline,
// exactly as `plumb tokenize --bench --chunk-bytes` cuts it.
//
//   node tools/node/bench_tokenizer.js TOKENIZER_JSON TEXT_FILE [REPEAT] [CHUNK_BYTES]
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const { Tokenizer } = require('tokenizers');

function chunksOf(bytes, chunkBytes) {
  if (!chunkBytes) return [bytes.toString('utf8')];
  const chunks = [];
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(bytes.length, start + chunkBytes);
    const newline = bytes.indexOf(0x0a, end);
    end = newline < 0 ? bytes.length : newline + 1;
    chunks.push(bytes.subarray(start, end).toString('utf8'));
    start = end;
  }
  return chunks;
}

(async () => {
  const [tokenizerPath, textPath, repeatArg, chunkArg] = process.argv.slice(2);
  const repeat = Number(repeatArg || 5);
  const chunkBytes = Number(chunkArg || 0);
  const tokenizer = Tokenizer.fromFile(tokenizerPath);
  const bytes = fs.readFileSync(textPath);
  const chunks = chunksOf(bytes, chunkBytes);
  const encodeAll = async () => {
    const ids = [];
    for (const chunk of chunks) {
      for (const id of (await tokenizer.encode(chunk, null, { addSpecialTokens: false })).getIds()) ids.push(id);
    }
    return ids;
  };
  let ids = await encodeAll();  // warm-up
  let best = Infinity;
  for (let i = 0; i < repeat; ++i) {
    const start = process.hrtime.bigint();
    ids = await encodeAll();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e9);
  }
  const packed = Buffer.alloc(ids.length * 4);
  ids.forEach((id, i) => packed.writeUInt32LE(id, i * 4));
  console.log(JSON.stringify({
    impl: 'hf-tokenizers (npm 0.23.2)',
    mode: `encode, one thread, ${chunks.length} calls of ~${chunkBytes || bytes.length} bytes, best of ${repeat}`,
    bytes: bytes.length, tokens: ids.length, seconds: best, mb_per_s: bytes.length / 1e6 / best,
    token_sha256: crypto.createHash('sha256').update(packed).digest('hex'),
  }));
})();
