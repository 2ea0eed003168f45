const test = require('node:test');
const assert = require('node:assert/strict');
const { load } = require('./load.js');

const fragmentStream = load('fragment-stream');

const FRAGS = ['<p>a</p>', 'quote " and \\ slash \\\\"', '', 'ünï 💥 \u2028', '"]', '\\'];

function feed(text, size) {
  const parser = fragmentStream.createParser();
  const out = [];
  for (let k = 0; k < text.length; k += size) out.push(...parser.push(text.slice(k, k + size)));
  return { out, done: parser.done };
}

test('pieces of every size give the same fragments', () => {
  const text = JSON.stringify(FRAGS);
  for (const size of [1, 2, 3, 7, 64, text.length]) {
    const { out, done } = feed(text, size);
    assert.deepEqual(out, FRAGS, 'size ' + size);
    assert.equal(done, true);
  }
});

test('a fragment is handed out as soon as it is whole', () => {
  const parser = fragmentStream.createParser();
  assert.deepEqual(parser.push('["one","tw'), ['one']);
  assert.deepEqual(parser.push('o"'), ['two']);
  assert.equal(parser.done, false);
  assert.deepEqual(parser.push(']'), []);
  assert.equal(parser.done, true);
});

test('the compact form our packer writes (batches joined by commas) parses too', () => {
  const text = '[' + ['"a","b"', '"c"'].join(',') + ']';
  assert.deepEqual(feed(text, 2).out, ['a', 'b', 'c']);
});

test('bad data throws', () => {
  assert.throws(() => fragmentStream.createParser().push('{"a":1}'), /bad fragment data/);
  assert.throws(() => fragmentStream.createParser().push('[1]'), /bad fragment data/);
});
