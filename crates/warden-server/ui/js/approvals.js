// Approval cards (in the chat and on the Approvals page) and the page
// itself. A card shows exactly what would run: the command, the target
// with its routing chain, the risk, the description, the time left, for
// file edits a diff of the change, and for a Proxmox guest whether a
// snapshot is taken first (what will be undoable). Approve or deny (with a reason);
// cards follow decisions made anywhere else.

import { get, post, seg, explain, roleAllows, ApiError } from './api.js';
import { h, clear, everySecond, formatTime, formatTimeLeft } from './dom.js';
import { guestLabel, loadInventory, routingChain } from './inventory.js';
import { unifiedDiff } from './diff.js';

const FINAL = ['approved', 'denied', 'expired', 'consumed'];

/**
 * Diff lines of a file edit: the file as it was when approval was asked
 * for (`file_before`, kept with the approval) against what the edit's
 * exact arguments make of it, so what is lost shows as well as what is
 * added.
 */
export function fileEditDiff(approval) {
  const args = approval.arguments;
  if (approval.tool !== 'file_edit' || !args || typeof args !== 'object') return null;
  const path = args.path || '(file)';
  const before = approval.file_before || null;
  const known = before && typeof before.content === 'string' ? before.content : null;
  const out = [{ kind: 'head', text: '--- ' + path }, { kind: 'head', text: '+++ ' + path }];
  if (before && before.unreadable) out.push({ kind: 'note', text: '(the current file could not be read: ' + before.unreadable + ')' });
  if (before && before.truncated) out.push({ kind: 'note', text: '(the current file is longer than what was read: the diff covers its start)' });
  if (!before && (args.action === 'write' || args.action === 'replace')) {
    out.push({ kind: 'note', text: '(the current file was not read)' });
  }
  let oldText;
  let newText;
  switch (args.action) {
    case 'write':
      oldText = known ?? '';
      newText = args.content;
      break;
    case 'append': {
      oldText = known ?? '';
      const sep = oldText !== '' && !oldText.endsWith('\n') ? '\n' : '';
      newText = oldText + sep + String(args.content ?? '');
      break;
    }
    case 'replace':
      if (known !== null && !known.includes(String(args.old ?? ''))) {
        out.push({ kind: 'note', text: '(the text to replace is not in the file as read: the edit would fail)' });
      }
      if (known !== null && known.includes(String(args.old ?? ''))) {
        oldText = known;
        newText = known.split(String(args.old ?? '')).join(String(args.new ?? ''));
      } else {
        oldText = args.old;
        newText = args.new;
      }
      break;
    default:
      return null;
  }
  return [...out, ...unifiedDiff(oldText, newText)];
}

/**
 * "Snapshot first" for a change to a Proxmox guest: whether a snapshot is
 * taken before it (so it can be undone), then the executor's own words.
 * Nothing when the approval carries no offer.
 */
export function snapshotFacts(offer) {
  if (!offer || typeof offer !== 'object' || !offer.guest) return null;
  const guest = guestLabel(offer.guest);
  const verdict = offer.take
    ? 'A snapshot of ' + guest + ' is taken first: undoable.'
    : 'No snapshot of ' + guest + ' is taken first: not undoable.';
  return [
    h('dt', {}, 'Snapshot'),
    h('dd', {
      testid: 'approval-snapshot',
      class: 'approval-snapshot ' + (offer.take ? 'snapshot-taken' : 'snapshot-none'),
      data: { take: String(Boolean(offer.take)) },
    },
    h('strong', {}, verdict),
    offer.undoable ? h('span', { class: 'muted snapshot-detail' }, ' ' + offer.undoable) : null),
  ];
}

/** The card for one approval. `me` is the logged-in user (role). */
export function approvalCard(approval, me, { sessionTitle = null } = {}) {
  const titleId = 'approval-title-' + approval.id;
  const reasonId = 'approval-reason-' + approval.id;
  const state = h('span', { class: 'badge state' });
  const timeLeft = h('span', { class: 'time-left', 'aria-live': 'off' });
  const outcome = h('p', { class: 'outcome', role: 'status' });
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const reason = h('input', {
    id: reasonId, testid: 'approval-reason', type: 'text', autocomplete: 'off',
    placeholder: 'Reason (required to deny)', maxlength: 2000,
  });
  const approve = h('button', { type: 'button', class: 'approve', testid: 'approval-approve' }, 'Approve');
  const deny = h('button', { type: 'button', class: 'deny', testid: 'approval-deny' }, 'Deny');
  const mayDecide = roleAllows(me.role, 'approver');
  const diff = fileEditDiff(approval);
  const risk = String(approval.risk || 'unknown').toLowerCase();
  const riskLevel = ['catastrophic', 'critical', 'high', 'medium', 'low'].find((r) => risk.includes(r)) || 'unknown';
  const decide = h('div', { class: 'decide' },
    h('label', { for: reasonId }, 'Reason'), reason, approve, deny,
    mayDecide ? null : h('p', { class: 'muted' }, 'Only approvers can decide (you are ' + me.role + ').'));
  const card = h('article', {
    class: 'approval-card', testid: 'approval-card', 'aria-labelledby': titleId,
    data: { approvalId: approval.id, state: 'pending' },
  },
  h('header', { class: 'approval-head' },
    h('h3', { id: titleId }, 'Approval: ', approval.tool, ' on ', routingChain(approval.target).split(' → ')[0]),
    state, h('span', { class: 'spacer' }), timeLeft),
  h('dl', { class: 'approval-facts' },
    h('dt', {}, 'Command'), h('dd', {}, h('pre', { class: 'approval-command', testid: 'approval-command' }, approval.command)),
    h('dt', {}, 'Target'), h('dd', { testid: 'approval-target', class: 'approval-target' },
      routingChain(approval.target), ' ', h('code', { class: 'muted' }, approval.target || '')),
    h('dt', {}, 'Risk'), h('dd', {}, h('span', { testid: 'approval-risk', class: 'risk risk-' + riskLevel }, risk.replace(/_/g, ' '))),
    h('dt', {}, 'What'), h('dd', { class: 'approval-description' }, approval.description),
    snapshotFacts(approval.snapshot),
    sessionTitle ? [h('dt', {}, 'Session'), h('dd', {}, h('a', { href: '#/chat/' + encodeURIComponent(approval.session_id) },
      sessionTitle(approval.session_id) || approval.session_id))] : null,
    h('dt', {}, 'Asked'), h('dd', {}, formatTime(approval.created_at))),
  diff ? h('pre', { class: 'diff', testid: 'approval-diff', 'aria-label': 'Change to the file' },
    diff.map((line) => h('span', { class: 'diff-' + line.kind }, line.text + '\n'))) : null,
  decide, outcome, error);

  card.approval = approval;
  card.parts = { state, timeLeft, outcome, error, reason, approve, deny, decide, mayDecide };

  async function send(kind) {
    error.hidden = true;
    const text = reason.value.trim();
    if (kind === 'deny' && !text) {
      error.textContent = 'Say why you deny it: the reason is passed on to the model.';
      error.hidden = false;
      reason.focus();
      return;
    }
    approve.disabled = true;
    deny.disabled = true;
    try {
      const body = kind === 'deny' ? { reason: text } : (text ? { reason: text } : {});
      const decided = await post('/api/approvals/' + seg(approval.id) + '/' + kind, body);
      updateApprovalCard(card, decided);
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 409) {
        // Decided elsewhere in the meantime: show what happened.
        try {
          updateApprovalCard(card, await get('/api/approvals/' + seg(approval.id)));
        } catch {
          updateApprovalCard(card, { state: failure.state || 'expired' });
        }
      } else {
        error.textContent = explain(failure);
        error.hidden = false;
        showState(card);
      }
    }
  }
  approve.addEventListener('click', () => send('approve'));
  deny.addEventListener('click', () => send('deny'));
  reason.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      send(reason.value.trim() ? 'deny' : 'approve');
    }
  });
  showState(card);
  if (approval.state !== 'pending') updateApprovalCard(card, approval);
  let away = 0;
  everySecond(() => {
    // A card gone from the page for a few seconds stops ticking.
    away = card.isConnected ? 0 : away + 1;
    if (away > 3) return false;
    tickTimeLeft(card);
    return true;
  });
  return card;
}

function tickTimeLeft(card) {
  const { timeLeft } = card.parts;
  if (card.dataset.state !== 'pending') {
    timeLeft.textContent = '';
    return;
  }
  const left = formatTimeLeft(card.approval.expires_at);
  timeLeft.textContent = left;
  if (left === 'expired') updateApprovalCard(card, { state: 'expired' });
}

function showState(card) {
  const { state, reason, approve, deny, decide, mayDecide } = card.parts;
  const current = card.dataset.state;
  state.textContent = current;
  state.className = 'badge state state-' + current;
  const open = current === 'pending';
  decide.hidden = !open;
  reason.disabled = !open || !mayDecide;
  approve.disabled = !open || !mayDecide;
  deny.disabled = !open || !mayDecide;
  tickTimeLeft(card);
}

/**
 * Apply a decision (an Approval, or `{state, decided_by?, reason?}` from
 * an `approval_resolved` event) to a card.
 */
export function updateApprovalCard(card, update) {
  const next = update.state || update.decision;
  if (!next) return;
  // A late answer must not reopen a decided card.
  if (FINAL.includes(card.dataset.state) && next === 'pending') return;
  // `consumed` is an approved request that ran: the card says approved.
  if (next === 'consumed') card.dataset.ran = 'true';
  card.dataset.state = next === 'consumed' ? 'approved' : next;
  // The stream says who decided, the API also why: keep what each knows.
  for (const [key, value] of Object.entries(update)) {
    if (value !== undefined && value !== null) card.approval[key] = value;
  }
  card.approval.state = card.dataset.state;
  const a = card.approval;
  const by = a.decided_by || update.by;
  const words = {
    approved: 'Approved', denied: 'Denied', expired: 'Expired without a decision', consumed: 'Approved and run',
  };
  const word = card.dataset.ran ? words.consumed : words[card.dataset.state];
  card.parts.outcome.textContent = word ? word + (by ? ' by ' + by : '') + (a.reason ? ': ' + a.reason : '') + '.' : '';
  showState(card);
}

/** Every approval card on the page for `id`. */
export function cardsFor(id) {
  return [...document.querySelectorAll('[data-testid="approval-card"]')].filter((c) => c.dataset.approvalId === id);
}

const POLL_MS = 2000;

/** The Approvals page: pending requests of every session, kept live. */
export function approvalsPage(view, me) {
  const pending = h('div', { class: 'card-list', 'aria-live': 'polite' });
  const decided = h('div', { class: 'card-list' });
  const status = h('p', { class: 'muted', role: 'status' });
  clear(view).append(
    h('div', { class: 'page-head' }, h('h1', {}, 'Approvals')),
    status,
    h('section', { 'aria-labelledby': 'pending-title' }, h('h2', { id: 'pending-title' }, 'Waiting for a decision'), pending),
    h('section', { 'aria-labelledby': 'decided-title' }, h('h2', { id: 'decided-title' }, 'Decided recently'), decided));
  const cards = new Map();
  const titles = new Map();
  const sessionTitle = (id) => titles.get(id);
  let timer = null;
  let stopped = false;

  async function refresh() {
    try {
      const [all] = await Promise.all([get('/api/approvals'), loadInventory().catch(() => [])]);
      if (stopped) return;
      const list = Array.isArray(all) ? all : [];
      if (list.some((a) => !titles.has(a.session_id))) {
        const sessions = await get('/api/sessions').catch(() => []);
        for (const s of sessions) titles.set(s.id, s.title || 'Untitled session');
      }
      list.sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)));
      const open = list.filter((a) => a.state === 'pending');
      const closed = list.filter((a) => a.state !== 'pending').slice(0, 20);
      for (const approval of [...open, ...closed]) {
        let card = cards.get(approval.id);
        if (!card) {
          card = approvalCard(approval, me, { sessionTitle });
          cards.set(approval.id, card);
        } else {
          updateApprovalCard(card, approval);
        }
        const home = card.dataset.state === 'pending' ? pending : decided;
        // Moving a card that has focus would lose it: wait for the next round.
        if (card.parentElement !== home && !card.contains(document.activeElement)) home.append(card);
      }
      const shown = new Set([...open, ...closed].map((a) => a.id));
      for (const [id, card] of cards) {
        if (!shown.has(id) && !card.contains(document.activeElement)) {
          card.remove();
          cards.delete(id);
        }
      }
      const anyPending = pending.querySelector('[data-testid="approval-card"]');
      const empty = pending.querySelector('.empty');
      if (!anyPending && !empty) pending.append(h('p', { class: 'muted empty' }, 'Nothing is waiting for a decision.'));
      if (anyPending && empty) empty.remove();
      if (!decided.children.length) decided.append(h('p', { class: 'muted empty' }, 'None yet.'));
      else if (decided.querySelector('[data-testid="approval-card"]')) decided.querySelectorAll('.empty').forEach((e) => e.remove());
      status.textContent = open.length + ' pending · updated ' + new Date().toLocaleTimeString();
    } catch (error) {
      status.textContent = 'Cannot load approvals: ' + explain(error);
    }
    if (!stopped) timer = setTimeout(refresh, POLL_MS);
  }
  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
