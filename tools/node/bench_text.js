// Writes a few MB of mixed text to stdout for the tokenizer benchmark: English prose, code and CJK text in
// turns, built from word lists with a fixed-seed generator (same size, same bytes, every run), with the
// golden texts of DeepSeek-V4's tokenizer fixture mixed in when given.
//
//   node tools/node/bench_text.js MEGABYTES [golden.jsonl] > text.txt
'use strict';
const fs = require('fs');

const megabytes = Number(process.argv[2] || 4);
const goldenPath = process.argv[3];

let state = 20240607;
const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 4294967296;
const pick = (list) => list[Math.floor(next() * list.length)];
const count = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));

const words = ('the of and to in is that it for was on are as with his they at be this from have or by one had ' +
  'not but what all were when we there can an your which their said if do will each about how up out them then ' +
  'she many some so these would other into has more her two like him see time could no make than first been its ' +
  'who now people my made over did down only way find use may water long little very after words called just ' +
  'where most know get through back much before go good new write our used me man too any day same right look ' +
  'think also around another came come work three must because does part even place well such here take why ' +
  'help put different away again off went old number great tell men say small every found still between name ' +
  'should home big give air line set own under read last never us left end along while might next sound below ' +
  'saw something thought both few those always show large often together asked house world going want school ' +
  'important until form food keep children feet land side without boy once animal life enough took sometimes ' +
  'model token engine request server memory kernel inference batch cache prompt stream latency throughput').split(' ');
const syllables = 'ka ri to mo na se lu vi po de zan ter ix ol um gra fen bok'.split(' ');
const ident = () => Array.from({ length: count(1, 3) }, () => pick(syllables)).join('') + (next() < 0.3 ? '_' + count(0, 99) : '');
const cjk = ('的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能对着事其里' +
  '所去行过家十用发天如然作方成者多日都三小军二无同么经法当起与好看学进种将还分此心前面又定见只主没公从深度求索' +
  'のにはをたがでてとしれさあいうえおかきくけこアイウエオカキクケコサシスセソタチツテトナニヌネノ').split('');
const cjkPunct = '，。、！？「」'.split('');

function prose() {
  const sentences = [];
  for (let s = count(2, 6); s > 0; --s) {
    const w = Array.from({ length: count(5, 18) }, () => pick(words));
    w[0] = w[0][0].toUpperCase() + w[0].slice(1);
    if (next() < 0.3) w.splice(count(1, w.length - 1), 0, String(count(0, 99999)));
    sentences.push(w.join(' ') + pick(['.', '.', '.', '!', '?', ',', ';']));
  }
  return sentences.join(' ') + '\n\n';
}

function code() {
  const lines = [`def ${ident()}(${ident()}, ${ident()}=${count(0, 512)}):`];
  for (let l = count(2, 8); l > 0; --l) {
    const indent = '    '.repeat(count(1, 3));
    lines.push(pick([
      () => `${indent}${ident()} = ${ident()}[${count(0, 64)}] * ${count(1, 4096)} + ${ident()}.${ident()}()`,
      () => `${indent}if ${ident()} >= ${count(0, 1000)} and not ${ident()}:`,
      () => `${indent}return {"${ident()}": ${ident()}, "n": ${count(0, 9999)}}  # ${pick(words)} ${pick(words)}`,
      () => `${indent}for (int ${ident()} = 0; ${ident()} < ${count(1, 100)}; ++${ident()}) { ${ident()}(); }`,
    ])());
  }
  return lines.join('\n') + '\n\n';
}

function cjkText() {
  let out = '';
  for (let s = count(2, 6); s > 0; --s) {
    out += Array.from({ length: count(6, 30) }, () => pick(cjk)).join('') + pick(cjkPunct);
  }
  return out + '\n';
}

const golden = goldenPath
  ? fs.readFileSync(goldenPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l).text)
  : [];
const target = megabytes * 1e6;
const parts = [];
let bytes = 0;
while (bytes < target) {
  const r = next();
  const part = golden.length && r < 0.05 ? pick(golden) + '\n' : r < 0.45 ? prose() : r < 0.75 ? code() : cjkText();
  parts.push(part);
  bytes += Buffer.byteLength(part);
}
process.stdout.write(parts.join(''));
