// Evidence: the sessions, newest first, and one session's bundle — the
// role slots, backtracks, discoveries and degraded formulas — with a link
// that downloads the bundle as the JSON the API answers.

import { api, apiURL, el, showError, fmtTime } from './api.js';

let cursor = '';
let loaded = false;

const $ = (id) => document.getElementById(id);

export function initEvidence() {
  $('sessions-more').addEventListener('click', () => loadSessions(cursor));
}

// showEvidence renders the view; id (from #/evidence/<id>) opens a bundle.
export async function showEvidence(id) {
  if (!loaded) {
    loaded = true;
    await loadSessions('');
  }
  for (const li of $('sessions').querySelectorAll('li[data-session]')) li.classList.toggle('current', li.dataset.session === id);
  if (id) await showBundle(id);
}

async function loadSessions(from) {
  try {
    const { data } = await api('evidence/sessions', { query: { cursor: from, limit: 50 } });
    const rows = data.sessions || data.rows || [];
    const list = $('sessions');
    if (!from) list.replaceChildren();
    for (const s of rows) {
      const id = typeof s === 'string' ? s : s.session_id;
      const when = typeof s === 'object' ? s.updated_at || s.created_at : '';
      const n = typeof s === 'object' ? s.count ?? s.events : undefined;
      list.append(el('li', { 'data-session': id },
        el('a', { href: `#/evidence/${encodeURIComponent(id)}` }, id),
        when ? el('span', { class: 'muted' }, ` ${fmtTime(when)}`) : null,
        n !== undefined ? el('span', { class: 'muted' }, ` · ${n} entries`) : null));
    }
    if (!from && rows.length === 0) list.append(el('li', { class: 'muted' }, 'No sessions have recorded evidence yet.'));
    cursor = data.next_cursor || '';
    $('sessions-more').hidden = !cursor;
  } catch (err) {
    showError(err);
  }
}

async function showBundle(id) {
  const box = $('bundle');
  try {
    const { data } = await api(`evidence/sessions/${encodeURIComponent(id)}`);
    const b = data.bundle || {};
    const roles = b.roles || {};
    box.replaceChildren(
      el('h2', {}, `Session ${b.session_id || id}`),
      el('p', { class: 'muted' }, `revision ${b.revision ?? '?'} · created ${fmtTime(b.created_at)} · updated ${fmtTime(b.updated_at)}`),
      el('p', {}, el('a', { id: 'bundle-download', href: apiURL(`evidence/sessions/${encodeURIComponent(id)}`), download: `evidence_bundle_${id}.json` }, 'Download JSON')),
      el('h3', {}, 'Role slots'),
      el('div', { class: 'roles' }, ...Object.keys(roles).sort().map((r) => slot(r, roles[r]))),
      section('Backtracks', b.backtracks, (o) => o.reason),
      section('Discoveries', b.discoveries, (o) => o.summary),
      section('Degraded formulas', b.degraded_formulas, (o) => (o.formula ? `${o.formula}${o.reason ? ` — ${o.reason}` : ''}` : '')),
    );
    showError(null);
  } catch (err) {
    box.replaceChildren(el('p', { class: 'error-text' }, `${err.code}: ${err.message}`));
    showError(err);
  }
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
    `${r.task_id}${r.assignee ? ` (${r.assignee})` : ''} · code at seq ${r.seq}: ${n} symbol${n === 1 ? '' : 's'} (${r.from})`);
}
