// The one way the page talks to the server: every /api answer is a tool
// envelope ({ok, data} or {ok:false, error:{code, category, message,
// details}}). A 401 opens the token dialog once and retries; a failure
// envelope becomes an ApiError the caller shows with showError.

export class ApiError extends Error {
  constructor(status, error) {
    super(error && error.message ? error.message : `request failed with status ${status}`);
    this.status = status;
    this.code = (error && error.code) || `HTTP_${status}`;
    this.category = (error && error.category) || '';
    this.details = (error && error.details) || {};
  }
}

let loginWaiters = null;
const metaListeners = new Set();

// onMeta(fn) calls fn(meta, query) with data.meta of every success and
// the query it was asked with (time travel reads at_seq and warnings).
export function onMeta(fn) {
  metaListeners.add(fn);
}

// api(path, {method, body, headers, query}) → {data, status, headers, env}.
// path is relative to /api/ ("board", "tasks/TASK-001"); query values that
// are undefined, null or "" are left out, arrays are repeated.
export async function api(path, opts = {}) {
  const url = apiURL(path, opts.query);
  const init = { method: opts.method || 'GET', headers: { Accept: 'application/json', ...(opts.headers || {}) }, credentials: 'same-origin' };
  if (opts.body !== undefined || (init.method !== 'GET' && init.method !== 'HEAD')) {
    // Every write is JSON: the server refuses one without this type (415).
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(opts.body === undefined ? {} : opts.body);
  }
  for (let attempt = 0; ; attempt++) {
    let res;
    try {
      res = await fetch(url, init);
    } catch (err) {
      throw new ApiError(0, { code: 'E_NETWORK', message: `cannot reach the server (${err.message})` });
    }
    if (res.status === 401 && attempt === 0) {
      await askToken();
      continue;
    }
    let env = null;
    const text = await res.text();
    try {
      env = text ? JSON.parse(text) : null;
    } catch {
      throw new ApiError(res.status, { code: `HTTP_${res.status}`, message: `the server answered ${res.status} with a body that is not JSON` });
    }
    if (!env || env.ok !== true) {
      throw new ApiError(res.status, env && env.error);
    }
    for (const fn of metaListeners) fn((env.data && env.data.meta) || {}, opts.query || {});
    return { data: env.data || {}, status: res.status, headers: res.headers, env };
  }
}

export function apiURL(path, query) {
  const u = new URL('api/' + path, document.baseURI);
  for (const [k, v] of Object.entries(query || {})) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) v.forEach((x) => u.searchParams.append(k, x));
    else u.searchParams.set(k, String(v));
  }
  return u.pathname + u.search;
}

// askToken shows #token-dialog until POST /api/login accepts a token;
// concurrent callers wait for the same dialog.
export function askToken() {
  if (loginWaiters) return loginWaiters;
  loginWaiters = new Promise((resolve) => {
    const dlg = document.getElementById('token-dialog');
    const form = document.getElementById('token-form');
    const input = document.getElementById('token-input');
    const errEl = document.getElementById('token-error');
    errEl.hidden = true;
    const onSubmit = async (ev) => {
      ev.preventDefault();
      const token = input.value.trim();
      if (!token) {
        errEl.textContent = 'Enter the token the server was started with.';
        errEl.hidden = false;
        return;
      }
      const res = await fetch(apiURL('login'), { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token }) }).catch(() => null);
      if (res && res.ok) {
        form.removeEventListener('submit', onSubmit);
        input.value = '';
        dlg.close();
        loginWaiters = null;
        window.dispatchEvent(new CustomEvent('cos:login'));
        resolve();
        return;
      }
      errEl.textContent = res ? 'That token was not accepted.' : 'Cannot reach the server.';
      errEl.hidden = false;
      input.select();
    };
    form.addEventListener('submit', onSubmit);
    dlg.addEventListener('cancel', (ev) => ev.preventDefault()); // the page needs the token
    if (!dlg.open) dlg.showModal();
    input.focus();
  });
  return loginWaiters;
}

// showError puts an error (ApiError or any Error) in the #error bar with
// its code; showError(null) clears it.
export function showError(err) {
  const bar = document.getElementById('error');
  if (!err) {
    bar.hidden = true;
    bar.replaceChildren();
    return;
  }
  const msg = el('span', { class: 'msg shown-text' }, visible(err.message || String(err)));
  const parts = [msg];
  if (err.code) parts.unshift(el('code', {}, err.code));
  const close = el('button', { type: 'button', class: 'close', 'aria-label': 'Dismiss' }, '×');
  close.addEventListener('click', () => showError(null));
  bar.replaceChildren(...parts, close);
  bar.hidden = false;
}

// el builds an element: el('a', {href: '#'}, 'text', child…). Attribute
// values false/null/undefined are left out; children that are strings
// become text nodes (never HTML).
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k === 'dataset') Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : String(c));
  }
  return node;
}

// requestID is a fresh request id for a write (safe to retry).
export function requestID(prefix) {
  const rnd = crypto.getRandomValues(new Uint32Array(2));
  return `${prefix}-${Date.now().toString(36)}-${rnd[0].toString(36)}${rnd[1].toString(36)}`;
}

export function fmtTime(t) {
  if (!t) return '';
  const d = new Date(t);
  return isNaN(d) ? String(t) : d.toLocaleString();
}

// --- shown text: bidi and control characters made visible ---------------
// A title from the log may hold characters that reorder or hide text
// (U+202E turns "exe.txt" into "txt.exe"; a C0/C1 control shows nothing).
// The server refuses them in new titles; visible() shows any an older
// event holds as a marker, "⟨U+202E⟩", and elements of class
// "shown-text" isolate their text (unicode-bidi: isolate, style.css).
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g;

export function visible(s) {
  return String(s ?? '').replace(HIDDEN, (c) => `⟨U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`);
}

// logout ends the login session (POST /api/logout) and reloads the page,
// which closes the live stream and asks for the token again.
export async function logout() {
  await fetch(apiURL('logout'), { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: '{}' }).catch(() => null);
  location.reload();
}
