// A small Markdown renderer for the model's answers: paragraphs, headings,
// fenced code, lists (nested by indentation), tables, quotes, rules, and
// inline code, bold, italics, strike-through and http(s) links. It builds
// DOM nodes and sets text with text nodes only: raw HTML in the model's
// text is shown as the characters it is, never parsed.

import { h } from './dom.js';

const FENCE = /^\s{0,3}(`{3,}|~{3,})\s*([\w+#.-]*)\s*$/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** The Markdown `text` as a fragment of DOM nodes. */
export function renderMarkdown(text) {
  const fragment = document.createDocumentFragment();
  fragment.append(...blocks(String(text || '').replace(/\r\n?/g, '\n').split('\n')));
  return fragment;
}

function startsBlock(line, next) {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) ||
    ITEM.test(line) || isTableStart(line, next);
}

function isTableStart(line, next) {
  return line.includes('|') && next !== undefined && next.includes('-') && TABLE_RULE.test(next);
}

function blocks(lines) {
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i += 1;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const code = [];
      i += 1;
      // An unclosed fence (still streaming) runs to the end.
      while (i < lines.length && !(lines[i].trim().startsWith(fence[1]) && FENCE.test(lines[i]))) {
        code.push(lines[i]);
        i += 1;
      }
      i += 1;
      const codeEl = h('code', fence[2] ? { 'data-lang': fence[2] } : {}, code.join('\n'));
      out.push(h('pre', { class: 'code' }, codeEl));
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      // Levels shift down: the page's own headings come first.
      out.push(h('h' + Math.min(6, heading[1].length + 2), {}, inline(heading[2])));
      i += 1;
      continue;
    }
    if (RULE.test(line)) {
      out.push(h('hr'));
      i += 1;
      continue;
    }
    if (QUOTE.test(line)) {
      const inner = [];
      while (i < lines.length && QUOTE.test(lines[i])) {
        inner.push(QUOTE.exec(lines[i])[1]);
        i += 1;
      }
      out.push(h('blockquote', {}, blocks(inner)));
      continue;
    }
    if (isTableStart(line, lines[i + 1])) {
      const rows = [line];
      i += 2;
      while (i < lines.length && lines[i].includes('|') && lines[i].trim()) {
        rows.push(lines[i]);
        i += 1;
      }
      out.push(table(rows));
      continue;
    }
    if (ITEM.test(line)) {
      const start = i;
      i += 1;
      while (i < lines.length) {
        const current = lines[i];
        if (ITEM.test(current) || /^\s+\S/.test(current)) {
          i += 1;
        } else if (!current.trim() && i + 1 < lines.length && (ITEM.test(lines[i + 1]) || /^\s+\S/.test(lines[i + 1]))) {
          i += 1;
        } else {
          break;
        }
      }
      out.push(list(lines.slice(start, i)));
      continue;
    }
    const paragraph = [];
    while (i < lines.length && lines[i].trim() && (paragraph.length === 0 || !startsBlock(lines[i], lines[i + 1]))) {
      paragraph.push(lines[i].trim());
      i += 1;
    }
    const children = [];
    paragraph.forEach((text, n) => {
      if (n > 0) children.push(h('br'));
      children.push(...inline(text));
    });
    out.push(h('p', {}, children));
  }
  return out;
}

function cells(row) {
  let text = row.trim();
  if (text.startsWith('|')) text = text.slice(1);
  if (text.endsWith('|') && !text.endsWith('\\|')) text = text.slice(0, -1);
  return text.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

function table(rows) {
  const [head, ...body] = rows;
  const headCells = cells(head);
  return h('div', { class: 'table-wrap' },
    h('table', {},
      h('thead', {}, h('tr', {}, headCells.map((c) => h('th', { scope: 'col' }, inline(c))))),
      h('tbody', {}, body.map((row) => {
        const values = cells(row);
        return h('tr', {}, headCells.map((_, n) => h('td', {}, inline(values[n] || ''))));
      }))));
}

/** Lines of one list (items and their indented continuations). */
function list(lines) {
  const first = ITEM.exec(lines[0]);
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const items = [];
  for (const line of lines) {
    const item = ITEM.exec(line);
    if (item && item[1].length <= indent) {
      items.push({ text: [item[3]], nested: [] });
    } else if (items.length) {
      const last = items[items.length - 1];
      if (last.nested.length || (item && item[1].length > indent)) last.nested.push(line);
      else if (line.trim()) last.text.push(line.trim());
    }
  }
  const props = {};
  if (ordered) {
    const start = parseInt(first[2], 10);
    if (start !== 1) props.start = start;
  }
  return h(ordered ? 'ol' : 'ul', props, items.map((item) => {
    const children = [];
    item.text.forEach((text, n) => {
      if (n > 0) children.push(h('br'));
      children.push(...inline(text));
    });
    const nested = item.nested.filter((l) => l.trim());
    if (nested.length) {
      const base = Math.min(...nested.map((l) => l.match(/^\s*/)[0].length));
      children.push(...blocks(nested.map((l) => l.slice(base))));
    }
    return h('li', {}, children);
  }));
}

const INLINE = new RegExp([
  '(`+)([\\s\\S]*?[^`])\\1(?!`)', // 1,2 code
  '\\*\\*([\\s\\S]+?)\\*\\*', // 3 bold
  '(?<![\\w])__([\\s\\S]+?)__(?![\\w])', // 4 bold
  '~~([\\s\\S]+?)~~', // 5 strike
  '\\*([^*\\s](?:[^*]*[^*\\s])?)\\*', // 6 em
  '(?<![\\w])_([^_\\s](?:[^_]*[^_\\s])?)_(?![\\w])', // 7 em
  '\\[([^\\]]+)\\]\\(([^)\\s]+)\\)', // 8,9 link
  '(https?:\\/\\/[^\\s<>()]*[^\\s<>().,;:!?\'"])', // 10 bare URL
].join('|'));

/** Only web links; anything else (javascript:, data:) stays text. */
function safeUrl(url) {
  try {
    const parsed = new URL(url, window.location.origin);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}

function link(text, url) {
  const href = safeUrl(url);
  if (!href) return [text];
  return [h('a', { href, target: '_blank', rel: 'noopener noreferrer nofollow' }, text)];
}

/** Inline Markdown of one line as nodes. */
export function inline(text) {
  const nodes = [];
  let rest = String(text);
  while (rest) {
    const match = INLINE.exec(rest);
    if (!match) {
      nodes.push(rest);
      break;
    }
    if (match.index > 0) nodes.push(rest.slice(0, match.index));
    const [whole, , code, bold1, bold2, strike, em1, em2, linkText, linkUrl, bare] = match;
    if (code !== undefined) nodes.push(h('code', {}, code.replace(/^ (.*) $/, '$1')));
    else if (bold1 !== undefined || bold2 !== undefined) nodes.push(h('strong', {}, inline(bold1 ?? bold2)));
    else if (strike !== undefined) nodes.push(h('del', {}, inline(strike)));
    else if (em1 !== undefined || em2 !== undefined) nodes.push(h('em', {}, inline(em1 ?? em2)));
    else if (linkText !== undefined) nodes.push(...link(inline(linkText), linkUrl));
    else if (bare !== undefined) nodes.push(...link(bare, bare));
    rest = rest.slice(match.index + whole.length);
  }
  return nodes;
}
