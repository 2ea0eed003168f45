const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const C = require(path.join(__dirname, '..', '..', 'src', 'sessiontree', 'templates', 'index-choices.js'));

test('rows offer their agents and projects, unreadable rows nothing', () => {
  const found = C.offered([
    { agent: 'claude', agentLabel: 'Claude Code', cwd: '/w/b', readable: true },
    { agent: 'pi', agentLabel: 'pi', cwd: '', readable: true },
    { agent: 'codex', agentLabel: 'Codex', cwd: '/w/z', readable: false },
    { agent: 'claude', agentLabel: 'Claude Code', cwd: '/w/b', readable: true },
  ]);
  assert.deepEqual(found.agents, [['claude', 'Claude Code'], ['pi', 'pi']]);
  assert.deepEqual(found.projects, [['/w/b', '/w/b'], ['', C.NO_CWD]]);
});

test('a new choice joins where the server puts it; nothing new, nothing to do', () => {
  const agents = [['claude', 'Claude Code'], ['pi', 'pi']];
  assert.deepEqual(C.merged(agents, [['codex', 'Codex CLI']], 'agents'), [['claude', 'Claude Code'], ['codex', 'Codex CLI'], ['pi', 'pi']]);
  assert.deepEqual(C.merged(agents, [['amp', 'amp']], 'agents')[0], ['amp', 'amp']); // case ignored: amp before Claude
  assert.equal(C.merged(agents, [['pi', 'pi']], 'agents'), null);
  const projects = [['/w/a', '/w/a'], ['/w/c', '/w/c']];
  assert.deepEqual(C.merged(projects, [['/w/b', '/w/b'], ['/w/a', '/w/a']], 'projects').map((p) => p[0]), ['/w/a', '/w/b', '/w/c']);
  assert.deepEqual(C.merged([], [['', C.NO_CWD]], 'projects'), [['', C.NO_CWD]]);
});
