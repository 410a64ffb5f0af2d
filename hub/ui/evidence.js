// Evidence: the sessions, newest first, and one session's bundle — the
// role slots, backtracks, discoveries and degraded formulas — with a link
// that downloads the bundle as the JSON the API answers. Both are read at
// the page's `at`. At now the list follows new sessions live: evidence
// recorded anywhere puts its session at the top (or updates its row), and
// re-reads the bundle shown when it is that session's.

import { api, apiURL, el, showError, fmtTime, visible } from './api.js';
import { subscribe } from './live.js';
import * as tt from './timetravel.js';

let cursor = '';
// loadedAt is the `at` the list was read at (null: not read yet).
let loadedAt = null;
// shown is the session whose bundle is shown ('' none).
let shown = '';
// dirty holds the sessions that recorded evidence since the last re-read.
const dirty = new Set();
let pending = false;

const $ = (id) => document.getElementById(id);

export function initEvidence() {
  $('sessions-more').addEventListener('click', () => loadSessions(cursor));
  subscribe((ev) => {
    const stream = ev.stream || '';
    if (!stream.startsWith('evidence:') || tt.readOnly() || loadedAt !== '') return;
    dirty.add(stream.slice(9));
    if (pending) return;
    pending = true;
    setTimeout(follow, 300);
  });
}

// follow re-reads the newest sessions after evidence was recorded: new
// ones go on top, the rows of known ones are replaced in place.
async function follow() {
  pending = false;
  const ids = new Set(dirty);
  dirty.clear();
  if (tt.readOnly() || loadedAt !== '') return;
  let data;
  try {
    ({ data } = await api('evidence/sessions', { query: { limit: 50 } }));
  } catch {
    return; // the next event or a visit tries again
  }
  const list = $('sessions');
  list.querySelector('li.empty')?.remove();
  const fresh = [];
  for (const s of data.sessions || []) {
    const old = list.querySelector(`li[data-session="${CSS.escape(s.session_id)}"]`);
    const li = sessionRow(s);
    if (old) old.replaceWith(li);
    else fresh.push(li);
  }
  list.prepend(...fresh);
  if (shown && ids.has(shown) && !$('view-evidence').hidden) await showBundle(shown);
}

// showEvidence renders the view; id (from #/evidence/<id>) opens a bundle.
export async function showEvidence(id) {
  if (loadedAt !== tt.at()) {
    loadedAt = tt.at();
    await loadSessions('');
  }
  for (const li of $('sessions').querySelectorAll('li[data-session]')) li.classList.toggle('current', li.dataset.session === id);
  shown = id;
  if (id) await showBundle(id);
  else $('bundle').replaceChildren(el('p', { class: 'muted' }, 'Pick a session.'));
}

function sessionRow(s) {
  const id = typeof s === 'string' ? s : s.session_id;
  const when = typeof s === 'object' ? s.updated_at || s.created_at : '';
  const n = typeof s === 'object' ? s.count ?? s.events : undefined;
  return el('li', { 'data-session': id, class: id === shown ? 'current' : false },
    el('a', { href: `#/evidence/${encodeURIComponent(id)}` }, id),
    when ? el('span', { class: 'muted' }, ` ${fmtTime(when)}`) : null,
    n !== undefined ? el('span', { class: 'muted' }, ` · ${n} entries`) : null);
}

async function loadSessions(from) {
  try {
    const { data } = await api('evidence/sessions', { query: { cursor: from, limit: 50, at: from ? undefined : tt.at() } });
    const rows = data.sessions || data.rows || [];
    const list = $('sessions');
    if (!from) list.replaceChildren();
    for (const s of rows) list.append(sessionRow(s));
    if (!from && rows.length === 0) {
      list.append(el('li', { class: 'muted empty' }, tt.readOnly() ? `No session had recorded evidence at ${atText()}.` : 'No sessions have recorded evidence yet.'));
    }
    cursor = data.next_cursor || '';
    $('sessions-more').hidden = !cursor;
  } catch (err) {
    showError(err);
  }
}

async function showBundle(id) {
  const box = $('bundle');
  try {
    const { data } = await api(`evidence/sessions/${encodeURIComponent(id)}`, { query: { at: tt.at() } });
    if (shown !== id) return; // another session was picked meanwhile
    const b = data.bundle || {};
    const roles = b.roles || {};
    box.replaceChildren(
      el('h2', {}, `Session ${b.session_id || id}`),
      el('p', { class: 'muted', id: 'bundle-revision', 'data-revision': String(b.revision ?? '') },
        `revision ${b.revision ?? '?'} · created ${fmtTime(b.created_at)} · updated ${fmtTime(b.updated_at)}${tt.readOnly() ? ` · as of ${atText()}` : ''}`),
      el('p', {}, el('a', { id: 'bundle-download', href: apiURL(`evidence/sessions/${encodeURIComponent(id)}`, { at: tt.at() }), download: `evidence_bundle_${id}.json` }, 'Download JSON')),
      el('h3', {}, 'Role slots'),
      el('div', { class: 'roles' }, ...Object.keys(roles).sort().map((r) => slot(r, roles[r]))),
      section('Backtracks', b.backtracks, (o) => o.reason),
      section('Discoveries', b.discoveries, (o) => o.summary),
      section('Degraded formulas', b.degraded_formulas, (o) => (o.formula ? `${o.formula}${o.reason ? ` — ${o.reason}` : ''}` : '')),
    );
    showError(null);
  } catch (err) {
    if (shown !== id) return;
    if (tt.readOnly() && err.code === 'E_NOT_FOUND') {
      // Not recorded yet at that point: the past, not a failure.
      box.replaceChildren(el('h2', {}, `Session ${id}`),
        el('p', { class: 'muted', id: 'bundle-none' }, `Session ${id} had recorded no evidence at ${atText()}.`));
      return;
    }
    box.replaceChildren(el('p', { class: 'error-text' }, `${err.code}: ${err.message}`));
    showError(err);
  }
}

// atText names the page's `at` in a sentence: "seq 140" or the time.
function atText() {
  const a = tt.at();
  return /^\d+$/.test(a) ? `seq ${a}` : a;
}

function slot(role, entries) {
  const list = Array.isArray(entries) ? entries : entries ? [entries] : [];
  return el('section', { class: list.length ? 'slot filled' : 'slot empty', 'data-role': role },
    el('h4', {}, role, ' ', el('span', { class: 'muted' }, list.length ? `(${list.length})` : '(empty)')),
    ...list.map((e) => entry(e, () => '')));
}

function section(title, entries, line) {
  const list = entries || [];
  return el('section', { class: 'entries', 'data-section': title.toLowerCase().replace(/ /g, '_') },
    el('h3', {}, `${title} (${list.length})`),
    list.length ? el('ul', {}, ...list.map((e) => el('li', {}, entry(e, line)))) : el('p', { class: 'muted' }, 'none'));
}

function entry(e, line) {
  const out = e && e.output !== undefined ? e.output : e;
  const head = typeof out === 'object' && out !== null ? line(out) : '';
  return el('div', { class: 'entry' },
    el('span', { class: 'muted' }, `#${e.seq ?? ''} ${fmtTime(e.time)}`),
    head ? el('p', {}, head) : null,
    e.task ? taskRef(e.task) : null,
    el('details', {}, el('summary', {}, 'output'), el('pre', { tabindex: '0' }, typeof out === 'string' ? out : JSON.stringify(out, null, 2))));
}

// taskRef is the code a record points at: the task, the seq its symbols
// were read at (the board and the graph answer it with time travel).
function taskRef(r) {
  const n = (r.symbols || []).length;
  return el('p', { class: 'task-ref muted', 'data-task-ref': r.task_id, 'data-seq': String(r.seq) },
    `${r.task_id}${r.assignee ? ` (${visible(r.assignee)})` : ''} · code at seq ${r.seq}: ${n} symbol${n === 1 ? '' : 's'} (${r.from})`);
}
