// `@` autocomplete in the message box: typing `@` and part of a name lists
// matching inventory resources; arrow keys move, Enter or Tab picks, Escape
// closes. A pick inserts `@name` (the canonical id when the name is not
// unique) and remembers the resource id, sent as the message's structured
// `mentions`.

import { h, clear } from './dom.js';
import { inventoryList, findResource, kindLabel } from './inventory.js';

const MAX_OPTIONS = 8;
const TOKEN = /^[\w.:-]*[\w:-]$/;

/** How a resource is written after `@`: its name when that is unambiguous. */
export function mentionToken(resource) {
  return TOKEN.test(resource.name) && findResource(resource.name) === resource ? resource.name : resource.id;
}

function rank(resource, query) {
  const name = resource.name.toLowerCase();
  const aliases = (resource.aliases || []).map((a) => a.toLowerCase());
  const id = resource.id.toLowerCase();
  if (name.startsWith(query)) return 0;
  if (aliases.some((a) => a.startsWith(query))) return 1;
  if (id.startsWith(query) || id.split(':').some((part) => part.startsWith(query))) return 2;
  if (name.includes(query) || aliases.some((a) => a.includes(query))) return 3;
  if (id.includes(query)) return 4;
  return -1;
}

export class MentionBox {
  constructor(textarea, listbox) {
    this.textarea = textarea;
    this.listbox = listbox;
    this.options = [];
    this.active = 0;
    this.range = null;
    this.picked = new Map();
    textarea.setAttribute('aria-autocomplete', 'list');
    textarea.setAttribute('aria-controls', listbox.id);
    textarea.setAttribute('aria-expanded', 'false');
    listbox.setAttribute('role', 'listbox');
    listbox.setAttribute('aria-label', 'Resources to mention');
    textarea.addEventListener('input', () => this.update());
    textarea.addEventListener('click', () => this.update());
    textarea.addEventListener('blur', () => setTimeout(() => this.close(), 150));
    textarea.addEventListener('keydown', (event) => this.onKey(event));
  }

  get isOpen() {
    return !this.listbox.hidden;
  }

  onKey(event) {
    if (!this.isOpen) return;
    const moves = { ArrowDown: 1, ArrowUp: -1 };
    if (event.key in moves) {
      this.active = (this.active + moves[event.key] + this.options.length) % this.options.length;
      this.draw();
    } else if (event.key === 'Enter' || event.key === 'Tab') {
      this.pick(this.options[this.active]);
    } else if (event.key === 'Escape') {
      this.close();
    } else {
      return;
    }
    event.preventDefault();
    event.stopImmediatePropagation();
  }

  update() {
    const caret = this.textarea.selectionStart;
    const before = this.textarea.value.slice(0, caret);
    const match = /(^|\s)@([^\s@]*)$/.exec(before);
    if (!match) {
      this.close();
      return;
    }
    const query = match[2].toLowerCase();
    this.range = { start: caret - match[2].length - 1, end: caret };
    this.options = inventoryList()
      .map((resource) => ({ resource, score: rank(resource, query) }))
      .filter((o) => o.score >= 0)
      .sort((a, b) => a.score - b.score || a.resource.name.localeCompare(b.resource.name))
      .slice(0, MAX_OPTIONS)
      .map((o) => o.resource);
    this.active = 0;
    if (!this.options.length) {
      this.close();
      return;
    }
    this.draw();
  }

  draw() {
    clear(this.listbox);
    this.options.forEach((resource, index) => {
      const option = h('li', {
        id: this.listbox.id + '-' + index, role: 'option', class: 'mention-option',
        testid: 'mention-option', data: { resourceId: resource.id },
        'aria-selected': String(index === this.active),
      },
      h('span', { class: 'res-name' }, resource.name),
      h('span', { class: 'badge' }, kindLabel(resource.kind)),
      h('code', { class: 'muted' }, resource.id));
      // mousedown, not click: the box keeps its focus.
      option.addEventListener('mousedown', (event) => {
        event.preventDefault();
        this.pick(resource);
      });
      this.listbox.append(option);
    });
    this.listbox.hidden = false;
    this.textarea.setAttribute('aria-expanded', 'true');
    this.textarea.setAttribute('aria-activedescendant', this.listbox.id + '-' + this.active);
    const active = this.listbox.children[this.active];
    if (active && active.scrollIntoView) active.scrollIntoView({ block: 'nearest' });
  }

  close() {
    clear(this.listbox);
    this.listbox.hidden = true;
    this.options = [];
    this.textarea.setAttribute('aria-expanded', 'false');
    this.textarea.removeAttribute('aria-activedescendant');
  }

  pick(resource) {
    if (!resource || !this.range) return;
    const token = mentionToken(resource);
    const value = this.textarea.value;
    const insert = '@' + token + ' ';
    this.textarea.value = value.slice(0, this.range.start) + insert + value.slice(this.range.end);
    const caret = this.range.start + insert.length;
    this.textarea.setSelectionRange(caret, caret);
    this.picked.set(token, resource.id);
    this.close();
    this.textarea.focus();
  }

  /** Start the box with a mention of `resource` ("ask about this"). */
  prefill(resource) {
    const token = mentionToken(resource);
    this.textarea.value = '@' + token + ' ';
    this.picked.set(token, resource.id);
    this.textarea.focus();
    this.textarea.setSelectionRange(this.textarea.value.length, this.textarea.value.length);
  }

  /** Ids of the picked resources still mentioned in the text. */
  mentions() {
    const words = new Set(this.textarea.value.split(/\s+/).map((w) => w.replace(/[,;!?)]+$/, '').replace(/\.$/, '')));
    const ids = [];
    for (const [token, id] of this.picked) {
      if (words.has('@' + token) && !ids.includes(id)) ids.push(id);
    }
    return ids;
  }

  reset() {
    this.picked.clear();
    this.close();
  }
}
