// Time travel: one `at` for the whole page (a log seq or an RFC 3339
// time). While it is set every view reads the state as it was at that
// point — the board, the graph, the feed (the events up to it, live ones
// held back), evidence, metrics and health (what of it has a past) — the
// #readonly-banner says so, with the server's warning when `at` is past
// the log head or in the future, and every write is disabled. `at` is in
// the address too (#/board?at=140): a view of the past can be shared, and
// a reload keeps it.

import { el, onMeta } from './api.js';

// COVERED names the views that read at `at`, for the banner.
const COVERED = 'board, graph, feed, evidence, metrics, health';

let current = '';
let shownSeq = null;
let warning = '';
const listeners = new Set();

export function at() {
  return current;
}

export function readOnly() {
  return current !== '';
}

// onChange(fn) calls fn() after `at` is set or cleared.
export function onChange(fn) {
  listeners.add(fn);
}

// parseAt returns the canonical `at` for a box value, or throws with a
// message saying what is accepted.
export function parseAt(raw) {
  const v = raw.trim();
  if (v === '') return '';
  if (/^\d+$/.test(v)) {
    const n = Number(v);
    if (!Number.isSafeInteger(n)) throw new Error(`seq ${v} is too large`);
    return String(n);
  }
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(v) && !isNaN(Date.parse(v))) {
    return v.replace(/T(\d{2}:\d{2})(Z|[+-])/, 'T$1:00$2');
  }
  throw new Error(`"${v}" is neither a log seq (a whole number such as 120) nor a time such as 2026-01-02T15:04:05Z`);
}

// apply makes value the page's `at` (box, storage, banner) without
// telling the listeners.
function apply(value) {
  current = value;
  shownSeq = /^\d+$/.test(value) ? Number(value) : null;
  warning = '';
  const input = document.getElementById('at-input');
  if (input.value !== value) input.value = value;
  if (value) sessionStorage.setItem('cos.at', value);
  else sessionStorage.removeItem('cos.at');
  renderBanner();
  document.body.classList.toggle('readonly', readOnly());
  // Every change of `at`, from the box or from the address, for the parts
  // of the page that only show whether writes are on (onChange listeners
  // re-render, and run for the box alone).
  document.dispatchEvent(new Event('cos:at-applied'));
}

// setAt sets (or, with '', clears) `at`, writes it into the address and
// re-renders the view.
export function setAt(value) {
  apply(value);
  writeHash();
  for (const fn of listeners) fn();
}

// hashWithAt returns a location.hash with its `at` parameter set to the
// page's (removed when there is none); the other parameters are kept.
export function hashWithAt(hash) {
  const h = hash.replace(/^#/, '');
  const i = h.indexOf('?');
  const path = i < 0 ? h : h.slice(0, i);
  const params = new URLSearchParams(i < 0 ? '' : h.slice(i + 1));
  if (current) params.set('at', current);
  else params.delete('at');
  const q = params.toString();
  return '#' + (path || '/board') + (q ? '?' + q : '');
}

function writeHash() {
  const want = hashWithAt(location.hash);
  if (want !== location.hash) history.replaceState(null, '', want);
}

// fromHash runs before a view renders, with the address's parameters: an
// `at` there wins over the page's (a shared link, a reload), and an
// address without one is given the page's (a nav link). It returns an
// E_ARGUMENT error for an `at` it cannot read (the page's is kept), else
// null.
export function fromHash(params) {
  if (params.has('at')) {
    let v;
    try {
      v = parseAt(params.get('at'));
    } catch (err) {
      writeHash();
      return Object.assign(err, { code: 'E_ARGUMENT' });
    }
    if (v !== current) apply(v);
  }
  writeHash();
  return null;
}

// noteSeq records the log seq a time-travel read reflected (meta.log_seq),
// so a time given as RFC 3339 shows its seq in the banner.
export function noteSeq(seq) {
  if (!readOnly() || typeof seq !== 'number' || seq === shownSeq) return;
  shownSeq = seq;
  renderBanner();
}

// noteMeta reads the meta of an answer asked at the page's `at`: the seq
// it reflected and the server's warning about `at` ("seq 900 is past the
// log head 250; …", "… is in the future; …").
function noteMeta(meta, query) {
  if (!readOnly() || String(query.at ?? '') !== current) return;
  let changed = false;
  const seq = typeof meta.at_seq === 'number' ? meta.at_seq : meta.log_seq;
  if (typeof seq === 'number' && seq !== shownSeq) {
    shownSeq = seq;
    changed = true;
  }
  const w = (meta.warnings || []).find((x) => typeof x === 'string' && x.startsWith('at: '));
  if (w && w.slice(4) !== warning) {
    warning = w.slice(4);
    changed = true;
  }
  if (changed) renderBanner();
}

function renderBanner() {
  const b = document.getElementById('readonly-banner');
  if (!readOnly()) {
    b.hidden = true;
    b.replaceChildren();
    return;
  }
  const where = shownSeq !== null ? `seq ${shownSeq}` : current;
  const when = shownSeq !== null && !/^\d+$/.test(current) ? ` (${current})` : '';
  b.replaceChildren(
    el('span', {}, `Showing the state at ${where}${when} — read-only. Writes are off until you go back to now.`),
    el('span', { class: 'muted' }, ` Views: ${COVERED}.`),
    ...(warning ? [el('strong', { id: 'at-warning', class: 'warn' }, ` Note: ${warning}.`)] : []));
  b.hidden = false;
}

export function initTimeTravel(showError) {
  const form = document.getElementById('at-form');
  const input = document.getElementById('at-input');
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    try {
      setAt(parseAt(input.value));
      showError(null);
    } catch (err) {
      showError(Object.assign(err, { code: 'E_ARGUMENT' }));
      input.focus();
    }
  });
  document.getElementById('at-clear').addEventListener('click', () => {
    input.value = '';
    if (readOnly()) setAt('');
  });
  onMeta(noteMeta);
  const saved = sessionStorage.getItem('cos.at') || '';
  if (saved) {
    try {
      apply(parseAt(saved));
    } catch {
      sessionStorage.removeItem('cos.at');
    }
  }
}
