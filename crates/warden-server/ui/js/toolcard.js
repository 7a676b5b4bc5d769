// One card per tool call in the transcript: the tool, its target, the
// command it runs, read/write, running/ok/failed, how long it took,
// whether the answer came from knowledge (cached), and its output, which
// can be folded away. Output is shown as text, never as markup.

import { h, formatDuration, uid } from './dom.js';
import { displayName } from './inventory.js';

/** The command a call runs, or a short form of its arguments. */
export function describeCall(name, args) {
  if (!args || typeof args !== 'object') return name;
  if (typeof args.command === 'string') return args.command;
  const parts = [name];
  if (args.action) parts.push(args.action);
  if (args.operation) parts.push(args.operation);
  if (args.service) parts.push(args.service);
  if (args.path) parts.push(args.path);
  const shown = new Set(['action', 'operation', 'service', 'path', 'target', 'content', 'old', 'new']);
  for (const [key, value] of Object.entries(args)) {
    if (shown.has(key) || value === null || value === undefined) continue;
    parts.push(key + '=' + (typeof value === 'string' ? value : JSON.stringify(value)));
  }
  return parts.join(' ');
}

/** What a tool answered (a ToolResponse envelope as JSON), for people. */
export function formatOutput(output) {
  if (!output) return '';
  let response;
  try {
    response = JSON.parse(output);
  } catch {
    return output;
  }
  if (!response || typeof response !== 'object') return String(output);
  const lines = [];
  if (response.error) {
    const error = response.error;
    lines.push((error.code || 'ERROR') + ': ' + (error.message || ''));
    const hint = error.details && error.details.recovery_hint;
    if (hint) lines.push('hint: ' + hint);
    const detail = error.details && error.details.output;
    if (detail) lines.push(commandOutput(detail));
  }
  if (response.data !== undefined) lines.push(dataText(response.data));
  return lines.filter(Boolean).join('\n');
}

function commandOutput(data) {
  const parts = [];
  if (data.stdout) parts.push(String(data.stdout).replace(/\n$/, ''));
  if (data.stderr) parts.push('[stderr]\n' + String(data.stderr).replace(/\n$/, ''));
  if (data.exit_code !== undefined && data.exit_code !== 0) parts.push('[exit code ' + data.exit_code + ']');
  if (data.truncated) parts.push('[output truncated]');
  return parts.join('\n');
}

function dataText(data) {
  if (typeof data === 'string') return data;
  if (data && typeof data === 'object' && (typeof data.stdout === 'string' || typeof data.stderr === 'string')) {
    return commandOutput(data);
  }
  return JSON.stringify(data, null, 2);
}

const KIND_LABEL = { read: 'read', write: 'write', resolve: 'lookup' };

/** A card for `tool_start`, status running. */
export function toolCard(event) {
  const outputId = uid('tool-output');
  const status = h('span', { class: 'tool-status', role: 'status' }, 'running…');
  const duration = h('span', { class: 'tool-duration' });
  const cached = h('span', { class: 'badge cached', hidden: true }, 'from knowledge');
  const output = h('pre', { class: 'tool-output', testid: 'tool-output', id: outputId, hidden: true });
  const toggle = h('button', {
    type: 'button', class: 'link-button tool-toggle', hidden: true,
    'aria-expanded': 'true', 'aria-controls': outputId,
  }, 'Hide output');
  toggle.addEventListener('click', () => {
    const open = toggle.getAttribute('aria-expanded') === 'true';
    toggle.setAttribute('aria-expanded', String(!open));
    toggle.textContent = open ? 'Show output' : 'Hide output';
    output.hidden = open;
  });
  const target = event.target || (event.arguments && event.arguments.target);
  const card = h('article', {
    class: 'tool-card', testid: 'tool-card',
    data: { tool: event.name, kind: event.kind, status: 'running', callId: event.call_id },
    'aria-label': 'Tool call ' + event.name + (target ? ' on ' + displayName(target) : ''),
  },
  h('header', { class: 'tool-head' },
    h('span', { class: 'tool-name' }, event.name),
    h('span', { class: 'badge kind-' + event.kind }, KIND_LABEL[event.kind] || event.kind),
    target ? h('span', { class: 'tool-target', title: target }, 'on ', displayName(target)) : null,
    h('span', { class: 'spacer' }),
    cached, status, duration),
  h('pre', { class: 'tool-command', testid: 'tool-command' }, describeCall(event.name, event.arguments)),
  toggle, output);
  card.parts = { status, duration, cached, output, toggle };
  return card;
}

/** Fill a card in from `tool_end`. */
export function finishToolCard(card, event) {
  const { status, duration, cached, output, toggle } = card.parts;
  card.dataset.status = event.ok ? 'ok' : 'failed';
  status.textContent = event.ok ? 'ok' : 'failed' + (event.error_code ? ' · ' + event.error_code : '');
  duration.textContent = formatDuration(event.duration_ms);
  cached.hidden = !event.cached;
  const text = formatOutput(event.output);
  output.textContent = text;
  output.hidden = !text;
  toggle.hidden = !text;
  // Lookups and long output start folded; short output and failures stay open.
  const long = text.split('\n').length > 30;
  if (text && event.ok && (long || card.dataset.kind === 'resolve')) toggle.click();
}
