/* sessiontree index: the agent / project filters' choices (pure data, no DOM). The server lists
 * them when it makes the page; a live update may bring a row of an agent or a project the page
 * has not offered yet: its choice is added where the server would have put it (agents by their
 * label, ignoring case; projects by their label). */
const indexChoices = (() => {
  const NO_CWD = '(no working directory)';

  // The (value, label) pairs rows offer: [{agent, agentLabel, cwd, readable}] -> {agents, projects}.
  function offered(rows) {
    const agents = new Map();
    const projects = new Map();
    for (const r of rows) {
      if (!r || !r.readable) continue;
      if (typeof r.agent === 'string' && r.agent) agents.set(r.agent, String(r.agentLabel || r.agent));
      if (typeof r.cwd === 'string') projects.set(r.cwd, r.cwd || NO_CWD);
    }
    return { agents: [...agents], projects: [...projects] };
  }

  function compare(a, b) {
    return a < b ? -1 : a > b ? 1 : 0;
  }

  // The choices with those not there yet added in their place; null when nothing is new.
  function merged(choices, found, kind) {
    const known = new Set(choices.map((c) => c[0]));
    const fresh = found.filter((f) => !known.has(f[0]));
    if (!fresh.length) return null;
    const key = kind === 'agents' ? (c) => c[1].toLowerCase() : (c) => c[1];
    return [...choices, ...fresh].sort((a, b) => compare(key(a), key(b)));
  }

  return { offered, merged, NO_CWD };
})();
if (typeof module === 'object' && module.exports) module.exports = indexChoices;
