// The Audit page: whether the hash chain is intact (or where it broke),
// the records with filters (session, tool, decision, target), and an
// export of the filtered records as JSONL.

import { get, explain } from './api.js';
import { h, clear, download, formatDuration, formatTime } from './dom.js';

const PAGE = 1000;
/** Records loaded at most (newest kept); the CLI exports everything. */
const MAX_RECORDS = 50000;
const SHOWN = 500;

async function loadAll() {
  const records = [];
  let after = 0;
  for (;;) {
    const page = await get('/api/audit?after=' + after + '&limit=' + PAGE);
    if (!Array.isArray(page) || !page.length) break;
    records.push(...page);
    if (records.length > MAX_RECORDS) records.splice(0, records.length - MAX_RECORDS);
    after = page[page.length - 1].seq;
    if (page.length < PAGE) break;
  }
  return records;
}

function verifyBanner(result) {
  if (result.intact) {
    return h('div', { class: 'verify ok', testid: 'audit-verify', role: 'status' },
      h('strong', {}, 'Audit log intact'), ' · ' + result.records + ' records, hash chain verified',
      result.head_hash ? h('code', { class: 'muted' }, ' head ' + result.head_hash.slice(0, 16) + '…') : null);
  }
  return h('div', { class: 'verify broken', testid: 'audit-verify', role: 'alert' },
    h('strong', {}, 'Audit log broken' + (result.at_seq !== undefined && result.at_seq !== null ? ' at record ' + result.at_seq : '')),
    ' · ' + (result.problem || 'the hash chain does not verify'));
}

export function auditPage(view) {
  const verify = h('div', { class: 'verify', testid: 'audit-verify', role: 'status' }, 'Verifying the hash chain…');
  const filters = {
    session: h('select', { id: 'audit-session' }),
    tool: h('select', { id: 'audit-tool' }),
    decision: h('select', { id: 'audit-decision' }),
    target: h('input', { id: 'audit-target', type: 'search', placeholder: 'Part of a target', autocomplete: 'off' }),
  };
  const count = h('p', { class: 'muted', role: 'status' });
  const exportButton = h('button', { type: 'button', disabled: true }, 'Export JSONL');
  const body = h('tbody');
  const more = h('button', { type: 'button', class: 'link-button', hidden: true }, 'Show more');
  const field = (label, control) => h('div', { class: 'field' }, h('label', { for: control.id }, label), control);
  clear(view).append(
    h('div', { class: 'page-head' }, h('h1', {}, 'Audit'), exportButton),
    verify,
    h('div', { class: 'filters', role: 'search', 'aria-label': 'Filter the records' },
      field('Session', filters.session), field('Tool', filters.tool),
      field('Decision', filters.decision), field('Target', filters.target)),
    count,
    h('div', { class: 'table-wrap' }, h('table', { class: 'audit' },
      h('caption', { class: 'visually-hidden' }, 'Audit records, newest first'),
      h('thead', {}, h('tr', {}, ['#', 'Time', 'Session', 'Actor', 'Tool', 'Target', 'Decision', 'Code', 'Command', 'Took']
        .map((t) => h('th', { scope: 'col' }, t)))),
      body)),
    more);

  let records = [];
  let limit = SHOWN;

  function options(select, label, values) {
    const current = select.value;
    clear(select).append(h('option', { value: '' }, 'Any ' + label),
      ...[...values].sort().map((v) => h('option', { value: v }, v)));
    select.value = values.has(current) ? current : '';
  }

  function filtered() {
    const target = filters.target.value.trim().toLowerCase();
    return records.filter((r) =>
      (!filters.session.value || r.session_id === filters.session.value) &&
      (!filters.tool.value || r.tool === filters.tool.value) &&
      (!filters.decision.value || r.decision === filters.decision.value) &&
      (!target || String(r.target || '').toLowerCase().includes(target)));
  }

  function draw() {
    const rows = filtered();
    count.textContent = rows.length + ' of ' + records.length + ' records';
    const shown = rows.slice(-limit).reverse();
    body.replaceChildren(...shown.map((r) => h('tr', {
      testid: 'audit-row', data: { seq: String(r.seq) },
      class: 'decision-' + String(r.decision).replace(/[^a-z_]/gi, ''),
    },
    h('td', {}, String(r.seq)),
    h('td', { class: 'nowrap' }, formatTime(r.at)),
    h('td', {}, h('a', { href: '#/chat/' + encodeURIComponent(r.session_id), title: r.session_id }, r.session_id.slice(0, 12))),
    h('td', {}, r.actor || ''),
    h('td', {}, r.tool),
    h('td', {}, r.target || ''),
    h('td', {}, h('span', { class: 'badge' }, r.decision)),
    h('td', {}, r.code || ''),
    h('td', {}, h('code', { class: 'command' }, r.command)),
    h('td', { class: 'nowrap' }, formatDuration(r.duration_ms)))));
    more.hidden = rows.length <= limit;
    exportButton.disabled = !rows.length;
  }

  for (const control of Object.values(filters)) {
    control.addEventListener(control.tagName === 'INPUT' ? 'input' : 'change', () => {
      limit = SHOWN;
      draw();
    });
  }
  more.addEventListener('click', () => {
    limit += SHOWN;
    draw();
  });
  exportButton.addEventListener('click', () => {
    const lines = filtered().map((r) => JSON.stringify(r)).join('\n') + '\n';
    download('warden-audit-' + new Date().toISOString().slice(0, 19).replace(/:/g, '') + '.jsonl', lines, 'application/x-ndjson');
  });

  get('/api/audit/verify').then((result) => verify.replaceWith(verifyBanner(result)), (error) => {
    verify.textContent = 'Cannot verify the audit log: ' + explain(error);
    verify.className = 'verify broken';
  });
  loadAll().then((loaded) => {
    records = loaded;
    const distinct = (key) => new Set(records.map((r) => r[key]).filter(Boolean));
    options(filters.session, 'session', distinct('session_id'));
    options(filters.tool, 'tool', distinct('tool'));
    options(filters.decision, 'decision', distinct('decision'));
    draw();
  }, (error) => {
    count.textContent = 'Cannot load the audit log: ' + explain(error);
  });
  return () => {};
}
