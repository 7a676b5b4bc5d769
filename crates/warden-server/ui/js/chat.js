// The Chat page: the session list (new, switch), the conversation with
// its live stream, the FSM state, the control level (limited by the
// user's role and the server's ceiling), the message box with `@`
// mentions, send and cancel.

import { get, post, patch, seg, explain, roleAllows } from './api.js';
import { h, clear, formatTime, formatNumber } from './dom.js';
import { SessionStream } from './sse.js';
import { Transcript } from './transcript.js';
import { MentionBox } from './mentions.js';
import { loadInventory, resource } from './inventory.js';

const LEVELS = [
  ['read_only', 'Read only'],
  ['controlled', 'Controlled (writes need approval)'],
  ['autonomous', 'Autonomous'],
];
/** After a reconnect, how long the stream gets to finish a turn it left open. */
const SETTLE_MS = 2000;

function maxLevel() {
  const meta = document.querySelector('meta[name="warden-max-control-level"]');
  const value = meta && meta.content;
  return LEVELS.some(([v]) => v === value) ? value : 'controlled';
}

const STATE_WORDS = { idle: '', running: 'running', waiting_approval: 'waiting for approval' };

/**
 * Show the chat in `view`. `route.id` is the session (none: a new chat);
 * `route.params.mention` pre-fills a mention. Returns a cleanup function
 * and, as `.open(route)`, a way to switch sessions without rebuilding.
 */
export function chatPage(view, ctx, route) {
  const { me } = ctx;
  const canPost = roleAllows(me.role, 'operator');
  const ceiling = LEVELS.findIndex(([v]) => v === maxLevel());

  const sessionList = h('ul', { class: 'session-list' });
  const newButton = h('button', { type: 'button', class: 'primary', testid: 'session-new', disabled: !canPost }, 'New session');
  const title = h('h1', { class: 'chat-title' }, 'New chat');
  const fsm = h('span', { class: 'fsm-state', testid: 'fsm-state' }, 'RESOLVING');
  const level = h('select', { id: 'control-level', testid: 'control-level', disabled: !canPost },
    LEVELS.map(([value, label], index) => h('option', { value, disabled: index > ceiling }, label + (index > ceiling ? ' (above the server\'s limit)' : ''))));
  level.value = LEVELS[Math.min(1, ceiling)][0];
  const connection = h('span', { class: 'connection', role: 'status' });
  const tokens = h('span', { class: 'muted tokens' });
  const transcriptBox = h('div', { class: 'transcript', role: 'log', 'aria-label': 'Conversation', tabindex: '0' });
  const input = h('textarea', {
    id: 'chat-input', testid: 'chat-input', rows: '2', disabled: !canPost,
    placeholder: canPost ? 'Ask about your infrastructure… (@ to mention · Enter sends · Shift+Enter: new line)' : 'Viewers can read sessions but not post.',
  });
  const mentionList = h('ul', { id: 'mention-list', class: 'mention-list', hidden: true });
  const send = h('button', { type: 'submit', class: 'primary', testid: 'chat-send', disabled: !canPost }, 'Send');
  const cancel = h('button', { type: 'button', testid: 'chat-cancel', disabled: true }, 'Cancel');
  const problem = h('p', { class: 'error', role: 'alert', hidden: true });
  const form = h('form', { class: 'composer', 'aria-label': 'Message' },
    h('label', { for: 'chat-input', class: 'visually-hidden' }, 'Message'),
    mentionList, input, h('div', { class: 'composer-buttons' }, send, cancel), problem);

  clear(view).append(h('div', { class: 'chat' },
    h('aside', { class: 'sessions', 'aria-label': 'Sessions' }, newButton, sessionList),
    h('section', { class: 'conversation', 'aria-labelledby': 'chat-title' },
      h('header', { class: 'chat-head' },
        title,
        h('span', { class: 'head-item' }, h('span', { class: 'muted' }, 'FSM '), fsm),
        h('span', { class: 'head-item' }, h('label', { for: 'control-level' }, 'Control level '), level),
        tokens, connection),
      transcriptBox, form)));
  title.id = 'chat-title';

  const mentions = new MentionBox(input, mentionList);
  const usage = { input: 0, output: 0 };
  let sessionId = null;
  let stream = null;
  let transcript = null;
  let sessions = [];
  let settleTimer = null;

  function showProblem(text) {
    problem.textContent = text || '';
    problem.hidden = !text;
  }

  function setRunning(running) {
    cancel.disabled = !running || !canPost;
    send.disabled = running || !canPost;
    send.textContent = running ? 'Working…' : 'Send';
  }

  function showUsage() {
    tokens.textContent = usage.input + usage.output
      ? formatNumber(usage.input) + ' in · ' + formatNumber(usage.output) + ' out tokens'
      : '';
  }

  function drawSessions() {
    clear(sessionList);
    if (!sessions.length) sessionList.append(h('li', { class: 'muted' }, 'No sessions yet.'));
    for (const s of sessions) {
      const state = STATE_WORDS[s.state] || '';
      sessionList.append(h('li', {},
        h('a', {
          href: '#/chat/' + encodeURIComponent(s.id), class: 'session-item', testid: 'session-item',
          data: { sessionId: s.id }, 'aria-current': s.id === sessionId ? 'page' : null,
        },
        h('span', { class: 'session-title' }, s.title || 'Untitled session'),
        h('small', { class: 'muted' }, [state, formatTime(s.created_at)].filter(Boolean).join(' · ')))));
    }
  }

  async function loadSessions() {
    try {
      sessions = await get('/api/sessions');
      drawSessions();
      const current = sessions.find((s) => s.id === sessionId);
      if (current && current.title) title.textContent = current.title;
    } catch (error) {
      clear(sessionList).append(h('li', { class: 'error' }, explain(error)));
    }
  }

  function showSession(detail) {
    title.textContent = detail.title || 'Untitled session';
    fsm.textContent = detail.fsm_state;
    level.value = detail.control_level;
    setRunning(detail.state !== 'idle');
  }

  function newTranscript() {
    transcript = new Transcript(transcriptBox, me, {
      fsm: (state) => { fsm.textContent = state; },
      usage: (event) => {
        usage.input += event.input_tokens || 0;
        usage.output += event.output_tokens || 0;
        showUsage();
      },
      turn: (running) => {
        setRunning(running);
        if (!running) loadSessions();
      },
      approval: () => ctx.refreshPending(),
    });
  }

  async function reload() {
    const detail = await get('/api/sessions/' + seg(sessionId));
    showSession(detail);
    usage.input = 0;
    usage.output = 0;
    showUsage();
    transcript.showStored(detail.messages || []);
    return detail;
  }

  async function open(id) {
    if (stream) stream.stop();
    stream = null;
    clearTimeout(settleTimer);
    sessionId = id;
    drawSessions();
    newTranscript();
    showProblem('');
    if (!id) {
      title.textContent = 'New chat';
      fsm.textContent = 'RESOLVING';
      setRunning(false);
      transcriptBox.append(h('p', { class: 'muted empty-chat' },
        'Ask a question about your hosts, guests and containers. Type @ to mention one.'));
      return;
    }
    try {
      await loadInventory().catch(() => []);
      await reload();
    } catch (error) {
      showProblem('Cannot open this session: ' + explain(error));
      return;
    }
    if (sessionId !== id) return;
    stream = new SessionStream(id, {
      event: (event) => transcript.apply(event),
      reset: () => reload(),
      reconnected: () => {
        clearTimeout(settleTimer);
        settleTimer = setTimeout(async () => {
          // A turn the old connection left open and the server has ended.
          const detail = await get('/api/sessions/' + seg(id)).catch(() => null);
          if (!detail || sessionId !== id) return;
          showSession(detail);
          if (transcript.running && detail.state === 'idle') {
            transcript.abandon();
            await reload();
          }
        }, SETTLE_MS);
      },
      status: (state) => {
        // A login that ended shows the sign-in form (via the 401), not endless retries.
        if (state === 'reconnecting') get('/api/auth/me').catch(() => {});
        connection.textContent = state === 'reconnecting' ? 'Reconnecting…' : '';
        connection.classList.toggle('warn', state === 'reconnecting');
      },
    }).start();
  }

  async function submit(event) {
    if (event) event.preventDefault();
    const text = input.value.trim();
    if (!text || !canPost) return;
    if (transcript && transcript.running) {
      showProblem('A turn is still running: wait for it or cancel it.');
      return;
    }
    showProblem('');
    send.disabled = true;
    try {
      if (!sessionId) {
        const created = await post('/api/sessions', { control_level: level.value });
        history.replaceState(null, '', '#/chat/' + encodeURIComponent(created.id));
        sessions.unshift(created);
        await open(created.id);
      }
      await post('/api/sessions/' + seg(sessionId) + '/messages', { text, mentions: mentions.mentions() });
      input.value = '';
      mentions.reset();
    } catch (error) {
      showProblem(error.status === 409 ? 'A turn is still running: wait for it or cancel it.' : explain(error));
      setRunning(transcript ? transcript.running : false);
    }
    input.focus();
  }

  form.addEventListener('submit', submit);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) submit(event);
  });
  cancel.addEventListener('click', async () => {
    if (!sessionId) return;
    try {
      await post('/api/sessions/' + seg(sessionId) + '/cancel');
    } catch (error) {
      showProblem(explain(error));
    }
  });
  level.addEventListener('change', async () => {
    if (!sessionId) return; // a new chat is created with this level
    try {
      const updated = await patch('/api/sessions/' + seg(sessionId), { control_level: level.value });
      level.value = updated.control_level;
    } catch (error) {
      showProblem(explain(error));
    }
  });
  newButton.addEventListener('click', async () => {
    try {
      const created = await post('/api/sessions', { control_level: level.value });
      sessions.unshift(created);
      location.hash = '#/chat/' + encodeURIComponent(created.id);
    } catch (error) {
      showProblem(explain(error));
    }
  });

  async function route_(next) {
    await open(next.id || null);
    const mention = next.params.get('mention');
    if (mention) {
      await loadInventory().catch(() => []);
      const target = resource(mention);
      if (target) mentions.prefill(target);
    }
  }

  loadSessions();
  loadInventory().catch(() => []);
  route_(route);
  const cleanup = () => {
    if (stream) stream.stop();
    clearTimeout(settleTimer);
  };
  cleanup.open = route_;
  return cleanup;
}
