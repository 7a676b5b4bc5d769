// A session's event stream (spec/api.md "The session event stream") with
// resume. EventSource reconnects by itself after a blip and sends
// Last-Event-ID, so the server replays only what was missed; when the
// browser gives up (an error answer), a new EventSource is opened with a
// back-off and the server replays everything it holds. Either way every
// event is handled once: events are numbered (`seq`) and an event whose
// number was already handled is dropped when it is the same event.
//
// A server restart starts the session's log again at 1: an event numbered
// at or below the last one handled but different from the one handled
// under that number means a new log. Then the page reloads the session
// from the store and continues from the new log.

export const EVENT_TYPES = [
  'turn_start', 'content', 'thinking', 'tool_start', 'tool_end', 'approval_needed',
  'approval_resolved', 'fsm_state', 'usage', 'error', 'done',
];

/** Events remembered for recognising replays (a turn or two is plenty). */
const REMEMBERED = 20000;
const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];

export class SessionStream {
  /**
   * handlers: `event(data)` for each new event; `reset()` (may return a
   * promise) when the server's log restarted; `reconnected()` after a
   * broken connection is back; `status('live' | 'reconnecting')`.
   */
  constructor(sessionId, handlers) {
    this.url = '/api/sessions/' + encodeURIComponent(sessionId) + '/events';
    this.handlers = handlers;
    this.lastSeq = 0;
    this.seen = new Map();
    this.queue = [];
    this.pumping = false;
    this.source = null;
    this.broken = false;
    this.attempt = 0;
    this.timer = null;
    this.stopped = false;
  }

  start() {
    this.connect();
    return this;
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.source) this.source.close();
    this.source = null;
  }

  connect() {
    if (this.stopped) return;
    const source = new EventSource(this.url, { withCredentials: true });
    this.source = source;
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (message) => this.receive(message.data));
    }
    source.onopen = () => {
      this.attempt = 0;
      if (this.broken) {
        this.broken = false;
        this.status('live');
        if (this.handlers.reconnected) this.handlers.reconnected();
      } else {
        this.status('live');
      }
    };
    source.onerror = () => {
      if (this.stopped) return;
      this.broken = true;
      this.status('reconnecting');
      if (source.readyState === EventSource.CLOSED) {
        // The browser gave up (e.g. a 503 while the server restarts).
        source.close();
        const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
        this.attempt += 1;
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.connect(), delay);
      }
    };
  }

  status(state) {
    if (this.handlers.status) this.handlers.status(state);
  }

  receive(raw) {
    if (this.stopped) return;
    this.queue.push(raw);
    this.pump();
  }

  async pump() {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length && !this.stopped) {
        const raw = this.queue.shift();
        let data;
        try {
          data = JSON.parse(raw);
        } catch {
          continue;
        }
        const seq = Number(data.seq);
        if (!Number.isFinite(seq)) continue;
        if (seq <= this.lastSeq) {
          if (this.seen.get(seq) === raw) continue; // a replay of what was handled
          // A new log (the server restarted): start over from the store.
          this.seen.clear();
          this.lastSeq = 0;
          try {
            await this.handlers.reset();
          } catch {
            // The page shows what it could load; the events still apply.
          }
        }
        this.remember(seq, raw);
        this.handlers.event(data);
      }
    } finally {
      this.pumping = false;
    }
  }

  remember(seq, raw) {
    this.lastSeq = seq;
    this.seen.set(seq, raw);
    if (this.seen.size > REMEMBERED) {
      const oldest = this.seen.keys().next().value;
      this.seen.delete(oldest);
    }
  }
}
