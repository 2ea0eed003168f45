const test = require('node:test');
const assert = require('node:assert/strict');
const { load } = require('./load.js');

const outline = load('outline');
const localTime = load('local-time');

const P = (preview, ts) => ({ cat: 'user', prompt: true, preview, ts });
const A = (tools, ts) => ({ cat: 'assistant', tools, ts });
const R = (ts) => ({ cat: 'tool', ts });

test('one item per typed prompt, numbered, with its turn\'s tool counts by tool', () => {
  const entries = [
    P('fix the bug\nsecond line', '2025-11-17T11:00:00Z'),
    A(['Edit', 'Bash'], '2025-11-17T11:00:05Z'), R('2025-11-17T11:00:06Z'), R('2025-11-17T11:00:07Z'),
    A(['edit', 'edit', 'bash'], '2025-11-17T11:00:10Z'), R('2025-11-17T11:02:00Z'),
    { cat: 'user', preview: '/model opus' },        // a slash command: not a typed prompt
    A(undefined, '2025-11-17T11:03:00Z'),
    P('now the docs', '2025-11-17T12:00:00Z'), A(['Read'], '2025-11-17T12:00:30Z'),
  ];
  const items = outline.build(entries, entries.map((_, i) => i), 80);
  assert.deepEqual(items.map((it) => [it.idx, it.n, it.title, it.tools, it.calls]), [
    [0, 1, 'fix the bug', '3 edit · 2 bash', 5],
    [8, 2, 'now the docs', '1 read', 1],
  ]);
  // the turn runs from its prompt to its last entry (the slash command's reply included)
  assert.equal(items[0].ms, 3 * 60 * 1000);
  assert.equal(items[0].lastAssistant, 7);
  // the head of each turn's last reply: its length and its calls
  assert.deepEqual(Array.from(outline.turnEnds(items)), [[7, 'turn 3 min · 5 calls'], [9, 'turn 30 s · 1 call']]);
  // Focused: each prompt and its turn's last reply that calls nothing, else its last assistant message
  assert.deepEqual([...outline.focused(items)].sort((a, b) => a - b), [0, 7, 8, 9]);
  const talk = [P('q', '2025-11-17T11:00:00Z'), A(undefined, '2025-11-17T11:00:01Z'), A(['Bash'], '2025-11-17T11:00:02Z'), R('2025-11-17T11:00:04.200Z')];
  const one = outline.build(talk, [0, 1, 2, 3], 80);
  assert.deepEqual([...outline.focused(one)], [0, 1]);
  assert.deepEqual(Array.from(outline.turnEnds(one)), [[1, 'turn 4.2 s · 1 call']]);
});

test('only the path counts: a prompt on another branch is not listed', () => {
  const entries = [P('a'), A(['bash']), P('b on the old branch'), P('c on the new branch')];
  assert.deepEqual(outline.build(entries, [0, 1, 3]).map((it) => it.title), ['a', 'c on the new branch']);
});

test('titles are cut at a word with an ellipsis', () => {
  assert.equal(outline.cutAtWord('make the page read like a story please', 20), 'make the page read…');
  assert.equal(outline.cutAtWord('\n\n  short  one \nnext', 20), 'short one');
  assert.equal(outline.cutAtWord('x'.repeat(30), 10), 'xxxxxxxxx…');
});

test('step and itemAt follow positions', () => {
  const items = [{ idx: 2 }, { idx: 5 }, { idx: 9 }];
  const pos = (i) => i;
  assert.equal(outline.step(items, pos, 2, 1), 1);
  assert.equal(outline.step(items, pos, 5, -1), 0);
  assert.equal(outline.step(items, pos, 9, 1), -1);
  assert.equal(outline.step(items, pos, 0, -1), -1);
  assert.equal(outline.itemAt(items, pos, 6), 1);
  assert.equal(outline.itemAt(items, pos, 1), -1);
  // Before the page is laid out every position is -1: no prompt is the reader's (a long session
  // opened with its outline scrolled to the last prompt, issue 44).
  assert.equal(outline.itemAt(items, () => -1, -1), -1);
  assert.equal(outline.itemAt(items, (i) => (i === 5 ? -1 : i), 9), 2);
});

test('durations read as the header says them', () => {
  assert.equal(outline.duration(42_000), '42 s');
  assert.equal(outline.duration(185_000), '3 min 5 s');
  assert.equal(outline.duration(2 * 3600_000 + 14 * 60_000), '2 h 14 min');
});

test('a time shows in the reader\'s zone with the zone named, UTC on hover', () => {
  const f = localTime.format('2025-11-17T11:23:23.498Z', { locale: 'en-US', timeZone: 'America/New_York' });
  assert.equal(f.text, '2025-11-17 06:23:23 EST');
  assert.equal(f.title, '2025-11-17 11:23:23 UTC');
  const t = localTime.format('2025-07-01T00:30:00Z', { locale: 'en-US', timeZone: 'America/New_York', withDate: false });
  assert.equal(t.text, '20:30:00 EDT');
  assert.equal(t.date, '2025-06-30');
  assert.equal(localTime.format('yesterday'), null);
  const short = localTime.format('2025-11-17T11:23:23Z', { locale: 'en-US', timeZone: 'Asia/Kolkata', seconds: false });
  assert.equal(short.text, '2025-11-17 16:53 GMT+5:30');
});
