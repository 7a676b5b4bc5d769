// A session's conversation on the page: the stored messages (paged, so a
// session of a thousand messages opens at once) and the live turn from
// the event stream: streamed answers, tool cards, approval cards, errors.
// Turns the stream still holds replace their stored, text-only form, so
// nothing is shown twice.

import { h, clear } from './dom.js';
import { renderMarkdown } from './markdown.js';
import { toolCard, finishToolCard } from './toolcard.js';
import { approvalCard, updateApprovalCard, cardsFor } from './approvals.js';
import { findResource } from './inventory.js';

/** Stored messages drawn at first, and per "show earlier". */
const PAGE = 120;
/** Near the bottom: new content keeps the view at the bottom. */
const STICKY_PX = 120;

/** A user's text with `@mentions` of known resources as chips. */
function userText(text) {
  const nodes = [];
  const seen = new Set();
  for (const part of String(text).split(/(\s+)/)) {
    const match = /^@([\w.:-]*[\w:-])([^\w.:-]*)$/.exec(part);
    const found = match && findResource(match[1]);
    if (!found) {
      nodes.push(part);
      continue;
    }
    // The server adds `@id` for every structured mention: one chip each.
    if (seen.has(found.id)) {
      if (nodes.length && /^\s+$/.test(nodes[nodes.length - 1])) nodes.pop();
      continue;
    }
    seen.add(found.id);
    nodes.push(h('span', { class: 'mention', title: found.id }, '@' + found.name), match[2]);
  }
  return nodes;
}

const STAGES = { fast_path: 'a fast path', heuristic: 'a heuristic', parser: 'the command parser' };

/** Who answered: the model, or the router without it (and how). */
function routeLine(route) {
  if (route.stage === 'llm') return 'answered by the model';
  if (route.stage === 'unmatched') return 'not understood, and no model is configured';
  return 'answered by the router (' + (STAGES[route.stage] || route.stage) + ': ' + route.route +
    (route.target ? ' on ' + route.target : '') + ') without the model';
}

export class Transcript {
  /** `hooks`: `fsm(state)`, `usage(event)`, `turn(running)`, `approval()`. */
  constructor(container, me, hooks) {
    this.container = container;
    this.me = me;
    this.hooks = hooks;
    this.earlier = [];
    this.current = null;
    this.pending = new Set();
    this.more = h('button', { type: 'button', class: 'link-button load-earlier', hidden: true }, '');
    this.more.addEventListener('click', () => this.showEarlier());
    this.list = h('div', { class: 'turns' });
    clear(container).append(this.more, this.list);
  }

  get running() {
    return Boolean(this.current && !this.current.done);
  }

  /** Start over from the stored messages of a session. */
  showStored(messages) {
    this.current = null;
    this.pending.clear();
    clear(this.list);
    // Turn N is the one the N-th user message started (as the server
    // counts); an assistant message before any (none in practice) is 0.
    const turns = [];
    let users = 0;
    for (const message of messages) {
      if (message.role === 'user') {
        users += 1;
        turns.push({ number: users, messages: [] });
      } else if (!turns.length) {
        turns.push({ number: 0, messages: [] });
      }
      turns[turns.length - 1].messages.push(message);
    }
    this.earlier = turns;
    this.showEarlier(true);
    this.scrollToEnd();
  }

  showEarlier(first = false) {
    const before = this.container.scrollHeight - this.container.scrollTop;
    const batch = [];
    let count = 0;
    while (this.earlier.length && count < PAGE) {
      const turn = this.earlier.pop();
      count += turn.messages.length;
      batch.unshift(turn);
    }
    const nodes = batch.map((turn) => this.storedTurn(turn));
    this.list.prepend(...nodes);
    const left = this.earlier.reduce((n, t) => n + t.messages.length, 0);
    this.more.hidden = left === 0;
    this.more.textContent = 'Show earlier messages (' + left + ' more)';
    if (!first) this.container.scrollTop = this.container.scrollHeight - before;
  }

  storedTurn(turn) {
    return h('section', { class: 'turn', data: { turn: String(turn.number), source: 'store' } },
      turn.messages.map((m) => (m.role === 'user'
        ? h('div', { class: 'message user', testid: 'message-user', title: m.at }, h('p', {}, userText(m.text)))
        : h('div', { class: 'message assistant markdown', testid: 'message-assistant', data: { state: 'done' }, title: m.at },
          renderMarkdown(m.text)))));
  }

  nearEnd() {
    const c = this.container;
    return c.scrollHeight - c.scrollTop - c.clientHeight < STICKY_PX;
  }

  scrollToEnd() {
    this.container.scrollTop = this.container.scrollHeight;
  }

  /** Keep the bottom in view while content arrives, unless the user scrolled up. */
  follow(change) {
    const stick = this.nearEnd();
    change();
    if (stick) {
      this.scrollToEnd();
      // Once more after layout settles (fonts, folded output).
      requestAnimationFrame(() => this.scrollToEnd());
    }
  }

  /** Apply one stream event. */
  apply(event) {
    switch (event.type) {
      case 'turn_start': return this.follow(() => this.startTurn(event));
      case 'content': return this.follow(() => this.content(event.text));
      case 'thinking': return this.follow(() => this.thinking(event.text));
      case 'tool_start': return this.follow(() => this.toolStart(event));
      case 'tool_end': return this.follow(() => this.toolEnd(event));
      case 'approval_needed': return this.follow(() => this.approvalNeeded(event.approval));
      case 'approval_resolved': return this.approvalResolved(event);
      case 'fsm_state': return this.hooks.fsm(event.state);
      case 'usage': return this.hooks.usage(event);
      case 'error': return this.follow(() => this.error(event));
      case 'done': return this.follow(() => this.done(event));
      default: return undefined;
    }
  }

  ensureTurn() {
    if (!this.current) this.startTurn({ turn: 0, text: null });
    return this.current;
  }

  startTurn(event) {
    // The stream holds this turn: its stored form (and anything after) goes.
    for (const section of [...this.list.children]) {
      if (Number(section.dataset.turn) >= event.turn && event.turn > 0) section.remove();
    }
    this.earlier = this.earlier.filter((t) => t.number < event.turn);
    const section = h('section', { class: 'turn', data: { turn: String(event.turn), source: 'stream' } });
    if (event.text !== null) {
      section.append(h('div', { class: 'message user', testid: 'message-user' }, h('p', {}, userText(event.text))));
    }
    const working = h('p', { class: 'working muted', role: 'status' }, 'Working…');
    section.append(working);
    this.list.append(section);
    this.current = { section, working, segment: null, cards: new Map(), thinking: null, done: false };
    this.hooks.turn(true);
  }

  /** Put a block before the "working" line of the current turn. */
  add(node) {
    const turn = this.ensureTurn();
    turn.section.insertBefore(node, turn.working);
    return node;
  }

  closeSegment(state = 'done') {
    const turn = this.current;
    if (turn && turn.segment) {
      this.draw(turn.segment);
      turn.segment.element.dataset.state = state;
      turn.segment = null;
    }
  }

  content(text) {
    const turn = this.ensureTurn();
    if (!turn.segment) {
      const element = this.add(h('div', {
        class: 'message assistant markdown', testid: 'message-assistant', data: { state: 'streaming' },
        'aria-live': 'off',
      }));
      turn.segment = { element, text: '', queued: false };
    }
    const segment = turn.segment;
    segment.text += text;
    if (!segment.queued) {
      segment.queued = true;
      requestAnimationFrame(() => this.follow(() => this.draw(segment)));
    }
  }

  draw(segment) {
    segment.queued = false;
    segment.element.replaceChildren(renderMarkdown(segment.text));
  }

  thinking(text) {
    const turn = this.ensureTurn();
    if (!turn.thinking) {
      const body = h('pre', { class: 'thinking-text' });
      turn.thinking = { body, element: this.add(h('details', { class: 'thinking' }, h('summary', {}, 'Thinking'), body)) };
    }
    turn.thinking.body.textContent += text;
  }

  toolStart(event) {
    const turn = this.ensureTurn();
    this.closeSegment();
    turn.thinking = null;
    const card = this.add(toolCard(event));
    turn.cards.set(event.call_id, card);
  }

  toolEnd(event) {
    const turn = this.ensureTurn();
    let card = turn.cards.get(event.call_id);
    if (!card) {
      card = this.add(toolCard({ call_id: event.call_id, name: event.name, kind: 'read', arguments: {} }));
      turn.cards.set(event.call_id, card);
    }
    finishToolCard(card, event);
  }

  approvalNeeded(approval) {
    this.closeSegment();
    const existing = this.current && this.current.section.querySelector('[data-approval-id="' + CSS.escape(approval.id) + '"]');
    if (existing) return;
    this.add(approvalCard(approval, this.me));
    this.current.working.textContent = 'Waiting for a decision…';
    this.pending.add(approval.id);
    this.hooks.approval();
  }

  approvalResolved(event) {
    this.pending.delete(event.approval_id);
    if (this.running && !this.pending.size) this.current.working.textContent = 'Working…';
    for (const card of cardsFor(event.approval_id)) {
      updateApprovalCard(card, { state: event.decision, decided_by: event.by });
    }
    this.hooks.approval();
  }

  error(event) {
    if (event.code === 'ANSWER_UNVERIFIED') {
      // The answer stands; `done` marks it once it is complete.
      this.ensureTurn().unverified = String(event.message || '').replace(/^unverified: /, '');
      return;
    }
    this.closeSegment();
    const cancelled = event.code === 'CANCELLED';
    this.add(h('p', { class: cancelled ? 'notice' : 'error', role: 'alert' },
      cancelled ? 'Cancelled.' : event.message + ' (' + event.code + ')'));
  }

  done(event) {
    const turn = this.ensureTurn();
    const finalText = (event.final_text || '').trim();
    const last = turn.section.lastElementChild && turn.section.lastElementChild.previousElementSibling;
    const lastIsAnswer = turn.segment || (last && last.dataset.testid === 'message-assistant');
    if (turn.segment) {
      // The final text wins (phantom detection may have replaced the stream).
      if (finalText && turn.segment.text.trim() !== finalText) turn.segment.text = event.final_text;
      this.closeSegment();
    } else if (finalText && !lastIsAnswer) {
      this.add(h('div', { class: 'message assistant markdown', testid: 'message-assistant', data: { state: 'done' } },
        renderMarkdown(event.final_text)));
    }
    if (turn.unverified) this.markUnverified(turn);
    if (event.route) this.add(h('p', { class: 'route muted' }, routeLine(event.route)));
    turn.working.remove();
    turn.done = true;
    this.hooks.turn(false);
  }

  /** The answer stands, but some of its facts no tool result showed. */
  markUnverified(turn) {
    const answers = turn.section.querySelectorAll('[data-testid="message-assistant"]');
    const answer = answers[answers.length - 1];
    if (answer) answer.dataset.verified = 'false';
    this.add(h('p', { class: 'unverified', role: 'note', testid: 'answer-unverified' },
      '⚠ Unverified: ' + turn.unverified));
  }

  /** The live turn ended without its `done` (the server went away). */
  abandon() {
    if (this.running) {
      this.closeSegment();
      this.current.working.textContent = 'The connection to this turn was lost.';
      this.current.done = true;
      this.hooks.turn(false);
    }
  }
}
