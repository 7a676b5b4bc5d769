// The Usage page: tokens and cost per provider and model, over time. The
// API gives totals since a moment (`?since=7d`); totals for the last 1, 2,
// … 14 days, subtracted one from the next, give each day's share.

import { get, explain } from './api.js';
import { h, svg, clear, formatCost, formatNumber } from './dom.js';

const DAYS = 14;
const WINDOWS = [['24h', 'Last 24 hours'], ['7d', 'Last 7 days'], ['30d', 'Last 30 days'], [null, 'All time']];

const keyOf = (row) => row.provider + ' / ' + row.model;

function totalsByModel(rows) {
  const map = new Map();
  for (const row of rows || []) map.set(keyOf(row), row);
  return map;
}

function table(rows, caption) {
  return h('div', { class: 'table-wrap' }, h('table', { class: 'usage' },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ['Provider', 'Model', 'Input tokens', 'Output tokens', 'Cost'].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, rows.length
      ? rows.map((r) => h('tr', {},
        h('td', {}, r.provider), h('td', {}, r.model),
        h('td', { class: 'num' }, formatNumber(r.input_tokens)),
        h('td', { class: 'num' }, formatNumber(r.output_tokens)),
        h('td', { class: 'num' }, formatCost(r.cost_usd))))
      : h('tr', {}, h('td', { colspan: '5', class: 'muted' }, 'No model calls in this period.')))));
}

/** Bars of tokens per day, one colour per provider/model. */
function chart(days, models) {
  const width = 640;
  const height = 180;
  const pad = 28;
  const max = Math.max(1, ...days.map((d) => [...d.values()].reduce((a, r) => a + r.tokens, 0)));
  const slot = (width - pad) / days.length;
  const bars = [];
  days.forEach((day, index) => {
    let y = height - pad;
    const x = pad + index * slot + slot * 0.15;
    models.forEach((model, m) => {
      const entry = day.get(model);
      if (!entry || !entry.tokens) return;
      const barHeight = ((height - 2 * pad) * entry.tokens) / max;
      y -= barHeight;
      bars.push(svg('rect', { x, y, width: slot * 0.7, height: barHeight, class: 'series-' + (m % 6) },
        svg('title', {}, (days.length - index) + ' days ago · ' + model + ': ' + formatNumber(entry.tokens) + ' tokens')));
    });
    if (index % 2 === days.length % 2) {
      const label = days.length - 1 - index === 0 ? 'today' : '-' + (days.length - 1 - index) + 'd';
      bars.push(svg('text', { x: x + slot * 0.35, y: height - 8, class: 'axis', 'text-anchor': 'middle' }, label));
    }
  });
  bars.push(svg('text', { x: 2, y: pad - 8, class: 'axis' }, formatNumber(max) + ' tokens'));
  bars.push(svg('line', { x1: pad, y1: height - pad, x2: width, y2: height - pad, class: 'axis-line' }));
  const legend = h('ul', { class: 'legend' }, models.map((model, m) => h('li', {},
    h('span', { class: 'swatch series-' + (m % 6), 'aria-hidden': 'true' }), model)));
  return h('figure', { class: 'chart' },
    svg('svg', { viewBox: '0 0 ' + width + ' ' + height, role: 'img', 'aria-label': 'Tokens per day over the last ' + DAYS + ' days' }, ...bars),
    h('figcaption', {}, 'Tokens per day (input and output), last ' + DAYS + ' days'), legend);
}

export function usagePage(view) {
  const body = h('div', { class: 'usage-body' }, h('p', { class: 'muted', role: 'status' }, 'Loading usage…'));
  clear(view).append(h('div', { class: 'page-head' }, h('h1', {}, 'Usage')), body);
  const since = (window) => get('/api/usage' + (window ? '?since=' + window : ''));
  const daily = Array.from({ length: DAYS }, (_, n) => since((n + 1) + 'd'));
  Promise.all([Promise.all(daily), Promise.all(WINDOWS.map(([w]) => since(w)))]).then(([cumulative, windows]) => {
    const models = [...new Set(windows[windows.length - 1].map(keyOf))].sort();
    // cumulative[n]: the last n+1 days; a day is one window minus the next smaller.
    const days = [];
    for (let n = DAYS - 1; n >= 0; n -= 1) {
      const wider = totalsByModel(cumulative[n]);
      const narrower = n > 0 ? totalsByModel(cumulative[n - 1]) : new Map();
      const day = new Map();
      for (const [key, row] of wider) {
        const before = narrower.get(key);
        const tokens = row.input_tokens + row.output_tokens - (before ? before.input_tokens + before.output_tokens : 0);
        day.set(key, { tokens: Math.max(0, tokens) });
      }
      days.push(day);
    }
    clear(body).append(
      models.length ? chart(days, models) : h('p', { class: 'muted' }, 'No model has been called yet.'),
      ...WINDOWS.map(([, label], i) => table(windows[i], label)));
  }, (error) => {
    clear(body).append(h('p', { class: 'error', role: 'alert' }, 'Cannot load usage: ' + explain(error)));
  });
  return () => {};
}
