// The page's entry: who is logged in (or the login form; or, after a
// one-time password, the form that replaces it), the navigation and the
// hash routes (#/chat/ID, #/approvals, #/inventory, #/audit, #/usage),
// and the count of pending approvals in the navigation.

import { get, post, setCsrf, onUnauthenticated, explain, ApiError } from './api.js';
import { chatPage } from './chat.js';
import { approvalsPage } from './approvals.js';
import { inventoryPage } from './inventory.js';
import { auditPage } from './audit.js';
import { usagePage } from './usage.js';

const $ = (id) => document.getElementById(id);
const PENDING_POLL_MS = 5000;

const app = { me: null, page: null, cleanup: null, pendingTimer: null, oneTime: null };

function parseRoute() {
  const hash = location.hash.replace(/^#\/?/, '');
  const [path, query] = hash.split('?');
  const [page, ...rest] = path.split('/');
  return {
    page: ['chat', 'approvals', 'inventory', 'audit', 'usage'].includes(page) ? page : 'chat',
    id: rest.length ? decodeURIComponent(rest.join('/')) : null,
    params: new URLSearchParams(query || ''),
  };
}

function navigate(hash) {
  if (location.hash === hash) render();
  else location.hash = hash;
}

const ctx = {
  get me() {
    return app.me;
  },
  refreshPending: () => refreshPending(),
  navigate,
};

function render() {
  if (!app.me) return;
  const route = parseRoute();
  for (const link of document.querySelectorAll('nav a[data-page]')) {
    if (link.dataset.page === route.page) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  // Switching sessions keeps the chat page (and its session list) in place.
  if (route.page === 'chat' && app.page === 'chat' && app.cleanup && app.cleanup.open) {
    app.cleanup.open(route);
    return;
  }
  if (app.cleanup) app.cleanup();
  app.page = route.page;
  const view = $('view');
  view.className = 'page-' + route.page;
  const ask = (resource) => navigate('#/chat?mention=' + encodeURIComponent(resource.id));
  const pages = {
    chat: () => chatPage(view, ctx, route),
    approvals: () => approvalsPage(view, app.me),
    inventory: () => inventoryPage(view, { ask }),
    audit: () => auditPage(view),
    usage: () => usagePage(view),
  };
  app.cleanup = pages[route.page]();
  document.title = 'Warden · ' + route.page[0].toUpperCase() + route.page.slice(1);
}

async function refreshPending() {
  clearTimeout(app.pendingTimer);
  if (!app.me) return;
  try {
    const pending = await get('/api/approvals?state=pending');
    const count = $('pending-count');
    count.textContent = String(pending.length);
    count.hidden = pending.length === 0;
    count.setAttribute('aria-label', pending.length + ' pending');
  } catch {
    // The next round tries again.
  }
  app.pendingTimer = setTimeout(refreshPending, PENDING_POLL_MS);
}

function showShell(me) {
  app.me = me;
  app.oneTime = null;
  setCsrf(me.csrf_token);
  $('login').hidden = true;
  $('password-change').hidden = true;
  $('shell').hidden = false;
  $('who-name').textContent = me.user;
  $('who-role').textContent = me.role;
  render();
  refreshPending();
}

function showLogin(message) {
  if (app.cleanup) app.cleanup();
  app.cleanup = null;
  app.page = null;
  app.me = null;
  clearTimeout(app.pendingTimer);
  app.oneTime = null;
  setCsrf(null);
  $('shell').hidden = true;
  $('password-change').hidden = true;
  $('login').hidden = false;
  const error = $('login-error');
  error.textContent = message || '';
  error.hidden = !message;
  $('login-password').value = '';
  $('login-username').focus();
}

async function login(event) {
  event.preventDefault();
  const username = $('login-username').value.trim();
  const password = $('login-password').value;
  const error = $('login-error');
  const submit = document.querySelector('[data-testid="login-submit"]');
  if (!username || !password) {
    error.textContent = 'Enter your user name and password.';
    error.hidden = false;
    return;
  }
  submit.disabled = true;
  try {
    const me = await post('/api/auth/login', { username, password });
    if (me.password_change_required) showPasswordChange(me, password);
    else showShell(me);
  } catch (failure) {
    let message = explain(failure);
    if (failure instanceof ApiError && failure.status === 401) message = 'Wrong user name or password.';
    if (failure instanceof ApiError && failure.status === 429) {
      message = 'Too many failed sign-ins. Try again in ' + (failure.retryAfter || 'a few') + ' seconds.';
    }
    error.textContent = message;
    error.hidden = false;
    $('login-password').select();
  } finally {
    submit.disabled = false;
  }
}

// A one-time password must be replaced before the app opens. The password
// just typed at login is kept in memory only, for this form; after a
// reload the form asks for it again.
function showPasswordChange(me, current) {
  if (app.cleanup) app.cleanup();
  app.cleanup = null;
  app.page = null;
  app.me = null;
  app.oneTime = { current };
  setCsrf(me.csrf_token);
  $('login').hidden = true;
  $('shell').hidden = true;
  $('password-change').hidden = false;
  $('password-current-row').hidden = current !== null;
  for (const id of ['password-current', 'password-new', 'password-repeat']) $(id).value = '';
  const error = $('password-error');
  error.textContent = '';
  error.hidden = true;
  $(current === null ? 'password-current' : 'password-new').focus();
}

async function changePassword(event) {
  event.preventDefault();
  const error = $('password-error');
  const say = (message) => {
    error.textContent = message;
    error.hidden = false;
  };
  const current = app.oneTime && app.oneTime.current !== null ? app.oneTime.current : $('password-current').value;
  const fresh = $('password-new').value;
  if (!current) return say('Enter the one-time password you signed in with.');
  if (fresh.length < 8) return say('The new password needs at least 8 characters.');
  if (fresh !== $('password-repeat').value) return say('The two new passwords differ.');
  if (fresh === current) return say('Choose a password other than the one-time password.');
  const submit = document.querySelector('[data-testid="password-submit"]');
  submit.disabled = true;
  try {
    showShell(await post('/api/auth/password', { current_password: current, new_password: fresh }));
  } catch (failure) {
    if (failure instanceof ApiError && failure.field === 'current_password') {
      // Asked again, typed this time.
      app.oneTime = { current: null };
      $('password-current-row').hidden = false;
      $('password-current').value = '';
      $('password-current').focus();
      say('The current password is wrong.');
    } else {
      say(explain(failure));
    }
  } finally {
    submit.disabled = false;
  }
}

async function logout() {
  try {
    await post('/api/auth/logout', {});
  } catch {
    // Gone already: the login form is what follows either way.
  }
  history.replaceState(null, '', '#/chat');
  showLogin('');
}

async function start() {
  $('login-form').addEventListener('submit', login);
  $('password-form').addEventListener('submit', changePassword);
  $('password-logout').addEventListener('click', logout);
  $('logout').addEventListener('click', logout);
  window.addEventListener('hashchange', render);
  onUnauthenticated(() => {
    if (app.me || app.oneTime) showLogin('Your sign-in has ended. Please sign in again.');
  });
  try {
    const me = await get('/api/auth/me');
    if (me.password_change_required) showPasswordChange(me, null);
    else showShell(me);
  } catch (failure) {
    showLogin(failure instanceof ApiError && failure.status === 401 ? '' : explain(failure));
  }
  // For the browser tests' timing: the first view is usable from here.
  document.documentElement.dataset.ready = String(Math.round(performance.now()));
}

start();
