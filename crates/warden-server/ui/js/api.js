// The HTTP API of spec/api.md, over the browser login cookie. Every
// state-changing request carries the CSRF token the login (or /me) gave.

/** An error answer of the API: `{"error": {"code", "message"}}`. */
export class ApiError extends Error {
  constructor(status, code, message, extra = {}) {
    super(message);
    this.status = status;
    this.code = code;
    Object.assign(this, extra);
  }
}

const auth = { csrf: null, onUnauthenticated: null };

/** Remember the CSRF token of this login. */
export function setCsrf(token) {
  auth.csrf = token;
}

/** Called when a request finds the login gone (expired, logged out elsewhere). */
export function onUnauthenticated(callback) {
  auth.onUnauthenticated = callback;
}

async function errorOf(response) {
  let code = 'HTTP_' + response.status;
  let message = response.statusText || 'request failed';
  let extra = {};
  try {
    const body = await response.json();
    if (body && body.error) {
      code = body.error.code || code;
      message = body.error.message || message;
      extra = { field: body.error.field, state: body.error.state };
    }
  } catch {
    // Not JSON (a proxy's page): keep the status.
  }
  const retry = Number(response.headers.get('Retry-After'));
  if (Number.isFinite(retry) && retry > 0) extra.retryAfter = retry;
  return new ApiError(response.status, code, message, extra);
}

/**
 * One API call. `body` is sent as JSON; the answer is parsed JSON, or null
 * for an empty answer (204).
 */
export async function call(method, path, body) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && auth.csrf) headers['X-CSRF-Token'] = auth.csrf;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError(0, 'NETWORK', 'The server cannot be reached (' + error.message + ')');
  }
  if (!response.ok) {
    const error = await errorOf(response);
    if (error.status === 401 && path !== '/api/auth/login' && auth.onUnauthenticated) {
      auth.onUnauthenticated();
    }
    throw error;
  }
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

export const get = (path) => call('GET', path);
export const post = (path, body = {}) => call('POST', path, body);
export const patch = (path, body) => call('PATCH', path, body);

/** A path segment: ids like `lxc:pve1:141` are URL-encoded. */
export const seg = (id) => encodeURIComponent(id);

/** A plain-words message for an error, for the people reading it. */
export function explain(error) {
  if (!(error instanceof ApiError)) return String(error && error.message ? error.message : error);
  switch (error.code) {
    case 'RATE_LIMITED':
      return 'Too many attempts. Try again in ' + (error.retryAfter || 'a few') + ' seconds.';
    case 'FORBIDDEN':
      return 'Not allowed: ' + error.message;
    case 'PASSWORD_CHANGE_REQUIRED':
      return 'Set a new password first (you signed in with a one-time password).';
    case 'CONFLICT':
      return error.message + (error.state ? ' (' + error.state + ')' : '');
    case 'NETWORK':
      return error.message;
    default:
      return error.message;
  }
}

/** What each role includes (viewer < operator < approver < admin). */
const ROLES = ['viewer', 'operator', 'approver', 'admin'];
export function roleAllows(role, required) {
  return ROLES.indexOf(role) >= ROLES.indexOf(required);
}
