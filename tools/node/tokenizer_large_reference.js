// Prints, for plumb's 1 MB tokenizer tests, the official HF tokenizers library's result on large generated
// inputs with DeepSeek-V4's tokenizer.json: the id count and the SHA-256 of the ids as little-endian uint32
// (plumb's token_sha256). The generators are mirrored in tests/text/tokenizer_large_test.cpp.
//
//   node tools/node/tokenizer_large_reference.js ../shared/fixtures/tokenizer/dsv4/tokenizer.json
'use strict';
const crypto = require('crypto');
const { Tokenizer } = require('tokenizers');

const MB = 1 << 20;
// `unit` repeated until the text has at least `bytes` UTF-8 bytes.
const repeatTo = (unit, bytes) => unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)));
const inputs = {
  letters: repeatTo('a', MB),
  spaces: repeatTo(' ', MB),
  newlines: repeatTo('  \n', MB),
  digits: repeatTo('0123456789', MB),
  cjk: repeatTo('深度求索', MB),
  mixed: repeatTo('The quick brown fox, 42 times! def f(x): return x*2\n深度求索公司。こんにちは 🦀 café\t', MB),
  specials: repeatTo('<｜User｜>x<｜Assistant｜><think>y</think>z<｜end▁of▁sentence｜>', MB),
};

(async () => {
  const tokenizer = Tokenizer.fromFile(process.argv[2]);
  for (const [name, text] of Object.entries(inputs)) {
    const ids = (await tokenizer.encode(text, null, { addSpecialTokens: false })).getIds();
    const bytes = Buffer.alloc(ids.length * 4);
    ids.forEach((id, i) => bytes.writeUInt32LE(id, i * 4));
    const sha = crypto.createHash('sha256').update(bytes).digest('hex');
    console.log(`${name}: bytes ${Buffer.byteLength(text)} ids ${ids.length} sha256 ${sha}`);
  }
})();
