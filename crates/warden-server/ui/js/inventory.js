// The inventory: one cached copy for the whole page (mentions, routing
// chains, names on cards) and the Inventory page, a tree of clusters,
// nodes, guests and containers, hosts and agents, with search and "ask
// about this".

import { get } from './api.js';
import { h, clear, statusClass, formatAgo, formatTime } from './dom.js';

const cache = { list: [], byId: new Map(), loaded: null };

/** How often the inventory page reads resources and agents again. */
const LIVE_MS = 5000;

/** Load (or reload) the inventory; resolves to the list. */
export function loadInventory(force = false) {
  if (!cache.loaded || force) {
    cache.loaded = get('/api/inventory').then((list) => {
      cache.list = Array.isArray(list) ? list : [];
      cache.byId = new Map(cache.list.map((r) => [r.id, r]));
      return cache.list;
    }).catch((error) => {
      cache.loaded = null;
      throw error;
    });
  }
  return cache.loaded;
}

export const inventoryList = () => cache.list;
export const resource = (id) => cache.byId.get(id);

/** The resource a target string names: its id, or its only name/alias match. */
export function findResource(target) {
  if (!target) return undefined;
  const exact = cache.byId.get(target);
  if (exact) return exact;
  const lower = String(target).toLowerCase();
  const named = cache.list.filter((r) => r.name.toLowerCase() === lower ||
    (r.aliases || []).some((a) => a.toLowerCase() === lower));
  return named.length === 1 ? named[0] : undefined;
}

/** The name people know a target by (the id when unknown). */
export function displayName(target) {
  const found = findResource(target);
  return found ? found.name : String(target);
}

const KIND_LABEL = {
  host: 'host', node: 'node', vm: 'VM', lxc: 'LXC', docker_host: 'Docker host',
  docker_container: 'container', k8s_cluster: 'cluster', k8s_node: 'k8s node', k8s_pod: 'pod',
  storage: 'storage',
};
export const kindLabel = (kind) => KIND_LABEL[kind] || kind;

/** The resource and its parents, nearest first. */
export function chainOf(target) {
  const chain = [];
  let current = findResource(target);
  while (current && chain.length < 10 && !chain.includes(current)) {
    chain.push(current);
    current = current.parent ? cache.byId.get(current.parent) : undefined;
  }
  return chain;
}

function hopLabel(r) {
  const uid = r.id.split(':').pop();
  switch (r.kind) {
    case 'node': return 'node ' + r.name;
    case 'host': return 'host ' + r.name;
    case 'k8s_cluster': return 'cluster ' + r.name;
    case 'lxc': case 'vm': return r.name + ' (' + kindLabel(r.kind) + ' ' + uid + ')';
    default: return r.name + ' (' + kindLabel(r.kind) + ')';
  }
}

/** "web (VM 101)" for a guest id: from the inventory, else from the id itself. */
export function guestLabel(id) {
  const found = findResource(id);
  if (found) return hopLabel(found);
  const [kind, node, vmid] = String(id || '').split(':');
  if (vmid && (kind === 'vm' || kind === 'lxc')) return kindLabel(kind) + ' ' + vmid + ' on node ' + node;
  return String(id || '—');
}

/** "jellyfin → media-server (LXC 141) → node pve1", or the target as given. */
export function routingChain(target) {
  const chain = chainOf(target);
  if (!chain.length) return String(target || '—');
  return [chain[0].name, ...chain.slice(1).map(hopLabel)].join(' → ');
}

const KIND_ORDER = ['k8s_cluster', 'node', 'host', 'docker_host', 'k8s_node', 'vm', 'lxc', 'docker_container', 'k8s_pod', 'storage'];
function byKindThenName(a, b) {
  const ka = KIND_ORDER.indexOf(a.kind);
  const kb = KIND_ORDER.indexOf(b.kind);
  if (ka !== kb) return (ka < 0 ? 99 : ka) - (kb < 0 ? 99 : kb);
  return a.name.localeCompare(b.name);
}

function matches(r, query) {
  if (!query) return true;
  const fields = [r.name, r.id, r.kind, r.status, r.host, r.source, ...(r.aliases || [])];
  return fields.some((f) => f && String(f).toLowerCase().includes(query));
}

/** The enrolled agents (`GET /api/agents`), or none when they cannot be read. */
function loadAgents() {
  return get('/api/agents').then((list) => (Array.isArray(list) ? list : []), () => []);
}

/** "agent connected" or "agent disconnected · last seen 3 min ago". */
function agentState(agent) {
  if (agent.connected) return 'agent connected';
  return 'agent disconnected · last seen ' + (agent.last_seen ? formatAgo(agent.last_seen) : 'never');
}

function agentBadge(agent) {
  return h('span', {
    class: 'res-agent ' + statusClass(agent.connected ? 'connected' : 'disconnected'),
    testid: 'inventory-agent',
    data: { connected: String(Boolean(agent.connected)) },
    title: 'agent ' + agent.name + (agent.version ? ' ' + agent.version : '') +
      (agent.last_seen ? ', last seen ' + formatTime(agent.last_seen) : ''),
  }, agentState(agent));
}

/** Every enrolled agent, also those whose host reports nothing yet. */
function agentsTable(agents) {
  if (!agents.length) return h('p', { class: 'muted' }, 'No agents are enrolled. Enroll one with `warden agent enroll`.');
  return h('table', { class: 'agents', testid: 'agents-table' },
    h('caption', {}, 'Agents'),
    h('thead', {}, h('tr', {},
      ['Name', 'Host', 'Version', 'State', 'Last seen'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, agents.slice().sort((a, b) => a.name.localeCompare(b.name)).map((a) =>
      h('tr', { testid: 'agent-row', data: { agentId: a.id, connected: String(Boolean(a.connected)) } },
        h('td', {}, a.name),
        h('td', {}, h('code', {}, a.host || '—')),
        h('td', {}, a.version || '—'),
        h('td', { class: statusClass(a.connected ? 'connected' : 'disconnected') },
          a.connected ? 'connected' : 'disconnected'),
        h('td', { title: a.last_seen ? formatTime(a.last_seen) : '' },
          a.last_seen ? formatAgo(a.last_seen) : 'never')))));
}

/** The Inventory page. `ask(resource)` opens a chat about it. */
export function inventoryPage(view, { ask }) {
  const search = h('input', {
    type: 'search', id: 'inventory-search', placeholder: 'Name, id, alias, status…',
    autocomplete: 'off',
  });
  const summary = h('p', { class: 'muted', role: 'status' });
  const tree = h('div', { class: 'inventory-tree' });
  const agentsSection = h('section', { class: 'agents-section', 'aria-label': 'Agents' });
  const refresh = h('button', { type: 'button' }, 'Refresh');
  clear(view).append(
    h('div', { class: 'page-head' },
      h('h1', {}, 'Inventory'),
      h('div', { class: 'search' }, h('label', { for: 'inventory-search' }, 'Search'), search),
      refresh),
    summary, tree, agentsSection);
  let agents = [];
  let agentOfHost = new Map();
  function setAgents(list) {
    agents = list;
    agentOfHost = new Map(list.filter((a) => a.host).map((a) => [a.host, a]));
    clear(agentsSection).append(agentsTable(agents));
  }

  function draw() {
    const query = search.value.trim().toLowerCase();
    const list = inventoryList();
    const children = new Map();
    const roots = [];
    for (const r of list) {
      if (r.parent && cache.byId.has(r.parent)) {
        if (!children.has(r.parent)) children.set(r.parent, []);
        children.get(r.parent).push(r);
      } else {
        roots.push(r);
      }
    }
    // A resource is drawn when it or something below it matches.
    const shown = new Map();
    const visit = (r) => {
      const kids = (children.get(r.id) || []).map(visit).some(Boolean);
      const hit = matches(r, query);
      shown.set(r.id, { hit, any: hit || kids });
      return hit || kids;
    };
    roots.forEach(visit);
    const hits = [...shown.values()].filter((s) => s.hit).length;
    summary.textContent = query
      ? hits + ' of ' + list.length + ' resources match'
      : list.length + ' resources';
    const branch = (items, depth) => h('ul', { class: 'tree-level', 'aria-label': depth ? null : 'Inventory' },
      items.filter((r) => shown.get(r.id).any).sort(byKindThenName).map((r) => item(r, depth)));
    const item = (r, depth) => {
      const kids = children.get(r.id) || [];
      const status = r.status || 'unknown';
      const isAgent = r.source === 'agent';
      const row = h('div', { class: 'tree-row' + (shown.get(r.id).hit ? '' : ' dim') },
        h('span', { class: 'dot ' + statusClass(r.status), 'aria-hidden': 'true' }),
        h('span', { class: 'res-name' }, r.name),
        h('span', { class: 'badge' }, kindLabel(r.kind)),
        h('span', { class: 'res-status ' + statusClass(r.status) },
          isAgent && !agentOfHost.has(r.id) ? 'agent ' + status : status),
        agentOfHost.has(r.id) ? agentBadge(agentOfHost.get(r.id)) : null,
        h('code', { class: 'res-id' }, r.id),
        (r.aliases || []).length ? h('span', { class: 'muted res-aliases' }, 'aka ' + r.aliases.join(', ')) : null,
        h('span', { class: 'muted res-source' }, r.source),
        h('span', { class: 'spacer' }),
        h('button', {
          type: 'button', class: 'small', testid: 'inventory-ask',
          'aria-label': 'Ask about ' + r.name, onclick: () => ask(r),
        }, 'Ask about this'));
      return h('li', {
        class: 'tree-item', testid: 'inventory-item',
        data: { resourceId: r.id, status: r.status || '' },
      }, row, kids.length ? branch(kids, depth + 1) : null);
    };
    clear(tree).append(list.length ? branch(roots, 0) : h('p', { class: 'muted' }, 'The inventory is empty.'));
  }

  const reload = () => Promise.all([loadInventory(true), loadAgents()])
    .then(([, list]) => { setAgents(list); draw(); }, showError);
  search.addEventListener('input', draw);
  refresh.addEventListener('click', reload);
  function showError(error) {
    clear(tree).append(h('p', { class: 'error', role: 'alert' }, 'Cannot load the inventory: ' + error.message));
  }
  reload();
  // The page is live: the installation's event stream says when the
  // inventory changed (read again at once), and resources and agents are
  // read again every 5 s anyway (a background refresh keeps what is drawn
  // when it fails, and says so only when the user asked with the button).
  const quietly = () => Promise.all([loadInventory(true), loadAgents()])
    .then(([, list]) => { setAgents(list); draw(); }, () => {});
  const timer = setInterval(quietly, LIVE_MS);
  let soon = null;
  const events = new EventSource('/api/events', { withCredentials: true });
  events.addEventListener('inventory_changed', () => {
    clearTimeout(soon);
    soon = setTimeout(quietly, 150);
  });
  return () => { clearInterval(timer); clearTimeout(soon); events.close(); };
}
