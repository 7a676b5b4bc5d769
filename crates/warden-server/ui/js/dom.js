// Building DOM nodes. Text only ever goes in as text nodes: nothing here
// parses HTML, so a string from the model, a command's output or a
// resource's name can never become markup.

/**
 * `h('button', {class: 'primary', testid: 'chat-send', onclick}, 'Send')`.
 * Props: `class`, `testid` (data-testid), `data` (dataset), `on*`
 * handlers, booleans (`hidden`, `disabled`), everything else an attribute.
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') element.className = value;
    else if (key === 'testid') element.dataset.testid = value;
    else if (key === 'data') Object.assign(element.dataset, value);
    else if (key.startsWith('on')) element.addEventListener(key.slice(2), value);
    else if (key === 'value') element.value = value;
    else if (value === true) element.setAttribute(key, '');
    else element.setAttribute(key, String(value));
  }
  append(element, children);
  return element;
}

/** Append children: nodes, strings (as text), arrays, skipping null. */
export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

export function clear(element) {
  element.replaceChildren();
  return element;
}

/** An SVG element (charts), attributes only. */
export function svg(tag, attrs = {}, ...children) {
  const element = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, String(value));
  append(element, children);
  return element;
}

let ids = 0;
/** A document-unique id for label/aria wiring. */
export function uid(prefix) {
  ids += 1;
  return prefix + '-' + ids;
}

/** `12 ms`, `1.4 s`, `2 min 5 s`. */
export function formatDuration(ms) {
  if (ms === undefined || ms === null) return '';
  if (ms < 1000) return Math.round(ms) + ' ms';
  if (ms < 60000) return (ms / 1000).toFixed(ms < 10000 ? 1 : 0) + ' s';
  const minutes = Math.floor(ms / 60000);
  return minutes + ' min ' + Math.round((ms % 60000) / 1000) + ' s';
}

/** Local date and time of an RFC 3339 string. */
export function formatTime(text) {
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) return text || '';
  return date.toLocaleString(undefined, {
    year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit',
  });
}

/** `just now`, `3 min ago`, `2 h ago`, `4 d ago` for an RFC 3339 string. */
export function formatAgo(text, now = Date.now()) {
  const at = new Date(text).getTime();
  if (!Number.isFinite(at)) return 'never';
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 45) return 'just now';
  if (seconds < 3600) return Math.max(1, Math.round(seconds / 60)) + ' min ago';
  if (seconds < 2 * 86400) return Math.round(seconds / 3600) + ' h ago';
  return Math.round(seconds / 86400) + ' d ago';
}

/** `4:59 left`, `expired`. */
export function formatTimeLeft(expiresAt, now = Date.now()) {
  const left = new Date(expiresAt).getTime() - now;
  if (!Number.isFinite(left)) return '';
  if (left <= 0) return 'expired';
  const seconds = Math.floor(left / 1000);
  const minutes = Math.floor(seconds / 60);
  return minutes + ':' + String(seconds % 60).padStart(2, '0') + ' left';
}

export const formatNumber = (n) => (n === null || n === undefined ? '—' : Number(n).toLocaleString('en-US'));

export function formatCost(usd) {
  if (usd === null || usd === undefined) return 'not priced';
  return '$' + Number(usd).toFixed(usd < 1 ? 4 : 2);
}

/** A status word as one of a few colour classes. */
export function statusClass(status) {
  const s = String(status || '').toLowerCase();
  if (['running', 'online', 'connected', 'active', 'ok', 'healthy', 'ready', 'up'].includes(s)) return 'st-good';
  if (['stopped', 'offline', 'disconnected', 'down', 'failed', 'error', 'dead', 'unhealthy'].includes(s)) return 'st-bad';
  if (['paused', 'suspended', 'degraded', 'pending', 'starting', 'stopping', 'unknown'].includes(s)) return 'st-warn';
  return 'st-none';
}

/** Offer `text` as a file download (audit export). */
export function download(filename, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = h('a', { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/** One shared one-second tick (approval countdowns). */
const tickers = new Set();
setInterval(() => {
  for (const tick of tickers) {
    if (!tick()) tickers.delete(tick);
  }
}, 1000);
/** `tick` runs every second while it returns true. */
export function everySecond(tick) {
  tickers.add(tick);
}
