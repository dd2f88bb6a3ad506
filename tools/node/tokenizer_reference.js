// Writes reference ids from the official HF tokenizers library (npm `tokenizers`, pinned in package.json)
// for plumb's tokenizer tests: variants of one small tokenizer.json that exercise each loader feature
// (pre-tokenizer kinds and split behaviors, regex shorthands, added-token flags, HF's id rule, unk handling,
// merge formats, decoders), and a list of texts. For each variant and text it records the ids, the decoded
// text, and the decoded text with special tokens skipped; then id lists that break UTF-8, decoded.
//
//   node tools/node/tokenizer_reference.js BASE_TOKENIZER_JSON OUT_DIR
//
// BASE is tests/text/data/tiny400.tokenizer.json (plumb's tiny_tokenizer_json(400)). OUT_DIR receives
// variants/NAME.json and reference.jsonl.
'use strict';
const fs = require('fs');
const path = require('path');
const { Tokenizer } = require('tokenizers');

const [basePath, outDir] = process.argv.slice(2);
if (!basePath || !outDir) {
  console.error('usage: node tokenizer_reference.js BASE_TOKENIZER_JSON OUT_DIR');
  process.exit(2);
}
const base = JSON.parse(fs.readFileSync(basePath, 'utf8'));
const copy = (x) => JSON.parse(JSON.stringify(x));
const byteLevel = (addPrefixSpace, useRegex) => ({
  type: 'ByteLevel', add_prefix_space: addPrefixSpace, trim_offsets: true, use_regex: useRegex,
});
const splitThenBytes = (pattern, behavior, invert) => ({
  type: 'Sequence',
  pretokenizers: [{ type: 'Split', pattern, behavior, invert }, byteLevel(false, false)],
});
const withPre = (pre) => (t) => { t.pre_tokenizer = pre; };
// The byte-level characters of bytes 0x01 and 0x02, which the base vocabulary has at ids 1 and 2.
const renameByteTokens = (t) => {
  const vocab = {};
  for (const [token, id] of Object.entries(t.model.vocab)) {
    vocab[id === 1 ? '<unk>' : id === 2 ? '<unused>' : token] = id;
  }
  t.model.vocab = vocab;
};

const variants = {
  base: () => {},
  // Special tokens renamed to strings no text contains: their ids stay, their text is plain text.
  no_special: (t) => {
    for (const a of t.added_tokens) if (a.special) a.content = `\u0000unmatchable${a.id}\u0000`;
  },
  gpt2: withPre(byteLevel(true, true)),
  gpt2_no_prefix: withPre(byteLevel(false, true)),
  split_removed: withPre(splitThenBytes({ Regex: '\\s+' }, 'Removed', false)),
  split_merged_previous: withPre(splitThenBytes({ Regex: '[,.!?]' }, 'MergedWithPrevious', false)),
  split_merged_next: withPre(splitThenBytes({ Regex: '\\s' }, 'MergedWithNext', false)),
  split_contiguous: withPre(splitThenBytes({ Regex: '\\p{N}' }, 'Contiguous', false)),
  split_invert: withPre(splitThenBytes({ Regex: '\\p{L}+' }, 'Removed', true)),
  split_string: withPre(splitThenBytes({ String: 'a.' }, 'Isolated', false)),
  regex_word: withPre(splitThenBytes({ Regex: '\\w+|\\d' }, 'Isolated', false)),
  regex_anchors: withPre(splitThenBytes({ Regex: '^\\s*\\S|\\S+$' }, 'Isolated', false)),
  regex_hex_u: withPre(splitThenBytes({ Regex: '\\h+|\\u00e9' }, 'Isolated', false)),
  regex_boundary: withPre(splitThenBytes({ Regex: '\\bth|\\Bn' }, 'Isolated', false)),
  added_flags: (t) => {
    for (const a of t.added_tokens) {
      if (a.content === '<think>') a.lstrip = true;
      if (a.content === '</think>') a.rstrip = true;
    }
    const next = t.added_tokens[t.added_tokens.length - 1].id + 1;
    t.added_tokens.push({ id: next, content: 'dog', single_word: true, lstrip: false, rstrip: false,
      normalized: false, special: false });
    t.added_tokens.push({ id: next + 1, content: 'cat', single_word: false, lstrip: true, rstrip: true,
      normalized: true, special: false });
  },
  id_rule: (t) => {
    for (const a of t.added_tokens) a.id += 100;
    t.added_tokens.push({ id: 7, content: 'Ġt', single_word: false, lstrip: false, rstrip: false,
      normalized: false, special: false });
  },
  ignore_merges: (t) => {
    const id = Object.keys(t.model.vocab).length;
    t.model.vocab['Ġxyz'] = id;
    t.model.ignore_merges = true;
    t.added_tokens.forEach((a, i) => { a.id = id + 1 + i; });
  },
  unk_fused: (t) => { renameByteTokens(t); t.model.unk_token = '<unk>'; t.model.fuse_unk = true; },
  unk_unfused: (t) => { renameByteTokens(t); t.model.unk_token = '<unk>'; t.model.fuse_unk = false; },
  drop_unknown: (t) => { renameByteTokens(t); },
  legacy_merges: (t) => { t.model.merges = t.model.merges.map((m) => m.join(' ')); },
  no_decoder: (t) => { t.decoder = null; },
};

const texts = [
  'Hello, world! How are you today?',
  '  leading and trailing spaces  ',
  'tabs\tand\nnewlines\r\n\n  indented',
  'numbers 1 12 123 1234 12345 3.14159 ٣٤ ²',
  '深度求索公司 こんにちは カタカナ 안녕하세요',
  'emoji 🦀👨‍👩‍👧 ❤️',
  'U+180E:\u180e| NBSP:\u00a0| ideographic:\u3000| NEL:\u0085| LS:\u2028| FS:\u001c|',
  'café naïve résumé éé',
  '<｜begin▁of▁sentence｜>Hello<｜end▁of▁sentence｜>',
  '<｜User｜>hi<｜Assistant｜><think>hm</think>ok',
  'a<think>b</think>c',
  'x  <think>  y  </think>  z',
  'dog hotdog dogs dog. catalog cat  cat  _dog_ dog',
  '｜DSML｜tool_calls｜DSML｜invokeDSML',
  'control \u0001\u0002\u0001 bytes \u0002\u0002',
  ' xyz xyz xyzz',
  'a.b a.c a.. aa.',
  'def f(x):\n    return x**2  # square\n',
  'first line\nsecond line\n3rd\n  \n',
  'the thesis thin both nth',
  'ÀÉ éa ae',
  '',
  '   ',
  '\n\n\n',
  '🦀',
];

// Id lists that cut or break UTF-8 (the base file's ids 0..255 are the bytes 0..255, 386 is EOS): the
// decoder's lossy conversion must match HF's String::from_utf8_lossy.
const brokenIdLists = [
  [0xc3], [0xc3, 0x41], [0xe4, 0xbd], [0xff, 0x41], [0xf0, 0x9f, 0xa6], [0xed, 0xa0, 0x80],
  [0xc0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe0, 0x80, 0x41], [0x41, 0xf0, 0x9f, 0xa6, 0x80, 0x42],
  [0xe4, 386, 0xbd, 0xa0], [0xf0, 0x9f, 0xa6, 0xe4, 0xbd, 0xa0, 0x80], [0x80, 0xbf, 0xfe, 0xc2],
];

(async () => {
  fs.mkdirSync(path.join(outDir, 'variants'), { recursive: true });
  const lines = [];
  for (const [name, change] of Object.entries(variants)) {
    const t = copy(base);
    change(t);
    const file = path.join(outDir, 'variants', `${name}.json`);
    fs.writeFileSync(file, JSON.stringify(t));
    const tokenizer = Tokenizer.fromFile(file);
    for (const text of texts) {
      const ids = (await tokenizer.encode(text, null, { addSpecialTokens: false })).getIds();
      lines.push(JSON.stringify({
        variant: name, text, ids,
        decoded: await tokenizer.decode(ids, false),
        decoded_skip: await tokenizer.decode(ids, true),
      }));
    }
  }
  const baseTokenizer = Tokenizer.fromFile(path.join(outDir, 'variants', 'base.json'));
  for (const ids of brokenIdLists) {
    lines.push(JSON.stringify({
      variant: 'base', ids,
      decoded: await baseTokenizer.decode(ids, false),
      decoded_skip: await baseTokenizer.decode(ids, true),
    }));
  }
  fs.writeFileSync(path.join(outDir, 'reference.jsonl'), lines.join('\n') + '\n');
  console.log(`wrote ${lines.length} cases for ${Object.keys(variants).length} variants to ${outDir}`);
})();
