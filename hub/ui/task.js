// The task panel: one task's page, a drawer over the board. It opens from
// a card's title (click, or Enter on a focused card) and from
// #/board?task=ID, closes with Esc or its × (focus goes back to the card).
// Every field is edited through PATCH /api/tasks/{id} with If-Match: the
// revision the panel shows; a stale one shows the current values beside
// the person's, to apply on top or drop. The assignee changes by claim and
// release: Release is offered to the holder (the name in "Your name"),
// anyone else gets "Force release" behind a confirmation. Below: the
// task's footprint and overlaps (cos_task_get's coordination), the
// evidence records made for it and its history, newest first, each row
// with a "view as of" link that sets the page's time travel.
// #new-task creates a task (POST /api/tasks) and opens its page.

import { api, ApiError, el, showError, requestID, fmtTime, visible } from './api.js';
import * as tt from './timetravel.js';
import { subscribe } from './live.js';

const FALLBACK_STATUSES = ['todo', 'in_progress', 'blocked', 'review', 'done', 'cancelled'];
const HISTORY_PAGE = 20;
const EVIDENCE_PAGE = 20;

let statuses = null;
let current = null; // {task, coordination} as cos_task_get answered it
let openID = ''; // the task the panel shows ('' when closed)
let historyCursor = '';
let evidenceCursor = '';
let loadSeq = 0; // drops the answers of an earlier open

const $ = (id) => document.getElementById(id);

// FIELDS are the form's fields: the input, and how a value is read from
// the task and the form (lists as comma-separated text).
const FIELDS = [
  { key: 'title', input: 'task-title' },
  { key: 'description', input: 'task-description' },
  { key: 'status', input: 'task-status' },
  { key: 'priority', input: 'task-priority' },
  { key: 'labels', input: 'task-labels', list: true },
  { key: 'depends_on', input: 'task-depends', list: true },
  { key: 'parent', input: 'task-parent' },
  { key: 'touches', input: 'task-touches', list: true },
];

function splitList(s) {
  return s.split(',').map((x) => x.trim()).filter(Boolean);
}

function label(status) {
  return status.replace(/_/g, ' ');
}

async function loadStatuses() {
  if (statuses) return statuses;
  try {
    const res = await fetch('api/openapi.json', { credentials: 'same-origin' });
    const doc = await res.json();
    const p = (doc.paths['/api/board'].get.parameters || []).find((x) => x.name === 'status');
    const en = p && p.schema && (p.schema.enum || (p.schema.items && p.schema.items.enum));
    statuses = Array.isArray(en) && en.length ? en.filter((s) => s !== '') : FALLBACK_STATUSES;
  } catch {
    statuses = FALLBACK_STATUSES;
  }
  for (const id of ['task-status', 'new-task-status']) {
    $(id).replaceChildren(...statuses.map((s) => el('option', { value: s }, label(s))));
  }
  return statuses;
}

function me() {
  return $('assignee-input').value.trim();
}

export function initTask() {
  const panel = $('task-panel');
  $('task-panel-close').addEventListener('click', () => panel.close());
  panel.addEventListener('close', onClose);
  $('task-form').addEventListener('submit', onSave);
  $('task-conflict-cancel').addEventListener('click', () => {
    $('task-conflict').hidden = true;
    render();
  });
  $('task-claim').addEventListener('click', onClaim);
  $('task-release').addEventListener('click', () => release(false));
  $('task-force-release').addEventListener('click', () => release(true));
  $('task-history-more').addEventListener('click', () => loadHistory(historyCursor));
  $('task-evidence-more').addEventListener('click', () => loadEvidence(evidenceCursor));
  $('assignee-input').addEventListener('input', () => {
    if (openID) renderHolder();
  });
  // The board's cards: a title opens the panel, as does Enter on a card.
  const board = $('board');
  board.addEventListener('click', (ev) => {
    const title = ev.target.closest('.card .title, .card button[data-action=open]');
    if (title) openTask(title.closest('.card').dataset.taskId);
  });
  board.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Enter' || !ev.target.classList || !ev.target.classList.contains('card')) return;
    ev.preventDefault();
    openTask(ev.target.dataset.taskId);
  });
  $('board-new').addEventListener('click', openNew);
  $('new-task-form').addEventListener('submit', onCreate);
  $('new-task-cancel').addEventListener('click', () => $('new-task').close());
  document.addEventListener('cos:at-applied', () => {
    $('board-new').disabled = tt.readOnly();
  });
  $('board-new').disabled = tt.readOnly();
  subscribe(onEvent);
}

// onEvent reads the open task again when another writer changed it: at
// once while the form holds no edit of the person's, otherwise the meta
// line says so (saving then shows the conflict).
function onEvent(ev) {
  if (!openID || !current || tt.readOnly() || !ev.type || !ev.type.startsWith('task.')) return;
  const id = ev.data && typeof ev.data.task_id === 'string' ? ev.data.task_id : (ev.stream || '').replace(/^(task|footprint):/, '');
  if (id !== openID || ev.seq <= (current.meta ? current.meta.log_seq : 0)) return;
  if (Object.keys(patchOf(current.task, formValues())).length === 0) {
    load(openID);
    return;
  }
  $('task-panel-meta').textContent = `revision ${current.task.revision} · changed elsewhere since you opened it (seq ${ev.seq}); saving shows their values beside yours.`;
}

// showTask follows the board's address: task=ID opens (or reads again,
// as of the page's `at`) that task's page; no task closes it.
export async function showTask(id) {
  if (id) await openTask(id);
  else if ($('task-panel').open) $('task-panel').close();
}

// openTask shows task id's page (#/board?task=ID, where a reload finds
// it again). Calling it for the task already shown reads it again.
export async function openTask(id) {
  if (!id) return;
  const panel = $('task-panel');
  setHashTask(id);
  if (!panel.open) panel.showModal();
  if (openID !== id) {
    openID = id;
    current = null;
    $('task-panel-title').textContent = id;
    $('task-conflict').hidden = true;
  }
  await load(id);
  if (panel.open && !panel.contains(document.activeElement)) $('task-title').focus();
}

// setHashTask puts task=id in the board's address (the other parameters
// kept), or takes it out for '', without routing again.
function setHashTask(id) {
  const h = location.hash.replace(/^#\/?/, '');
  const [path, query = ''] = h.split('?');
  if (!path.startsWith('board') && path !== '') return;
  const params = new URLSearchParams(query);
  if ((params.get('task') || '') === id) return;
  if (id) params.set('task', id);
  else params.delete('task');
  const q = params.toString();
  history.replaceState(history.state, '', `#/board${q ? '?' + q : ''}`);
}

function onClose() {
  const id = openID;
  openID = '';
  current = null;
  loadSeq++;
  setHashTask('');
  const card = document.querySelector(`#board .card[data-task-id="${CSS.escape(id)}"]`);
  if (card) {
    if (!card.hasAttribute('tabindex')) card.setAttribute('tabindex', '-1');
    card.focus();
  }
}

// load reads the task (as of `at` when set), then its evidence and
// history.
async function load(id) {
  const mine = ++loadSeq;
  await loadStatuses();
  try {
    const { data } = await api(`tasks/${encodeURIComponent(id)}`, { query: { at: tt.at() } });
    if (mine !== loadSeq) return;
    current = data;
    render();
  } catch (err) {
    if (mine !== loadSeq) return;
    current = null;
    $('task-panel-meta').textContent = err instanceof ApiError && err.status === 404
      ? (tt.readOnly() ? `${id} did not exist yet at ${tt.at()}.` : `There is no task ${id}.`)
      : `${err.code}: ${visible(err.message)}`;
    $('task-form').hidden = true;
    for (const s of $('task-panel').querySelectorAll('.task-section')) s.hidden = true;
    return;
  }
  await Promise.all([loadHistory(''), loadEvidence('')]);
}

function render() {
  const { task } = current;
  const ro = tt.readOnly();
  $('task-panel').dataset.taskId = task.task_id;
  $('task-panel').dataset.revision = String(task.revision);
  $('task-panel-title').textContent = `${task.task_id}: ${visible(task.title)}`;
  $('task-panel-meta').textContent = `revision ${task.revision} · created ${fmtTime(task.created_at)} · updated ${fmtTime(task.updated_at)}` +
    (ro ? ` · as of ${tt.at()}, read-only` : '');
  $('task-form').hidden = false;
  for (const s of $('task-panel').querySelectorAll('.task-section')) s.hidden = false;
  for (const f of FIELDS) {
    const v = task[f.key];
    $(f.input).value = f.list ? (v || []).join(', ') : (v || '');
    $(f.input).disabled = ro;
  }
  $('task-save').disabled = ro;
  $('task-form-error').hidden = true;
  renderHolder();
  renderCoord();
}

function renderHolder() {
  if (!current) return;
  const { task } = current;
  const ro = tt.readOnly();
  const holder = task.assignee || '';
  const mine = holder !== '' && holder === me();
  $('task-holder').textContent = holder ? `Held by ${visible(holder)}${mine ? ' (you)' : ''}.` : 'Unclaimed.';
  $('task-claim-row').hidden = holder !== '';
  $('task-assign-input').value = $('task-assign-input').value || me();
  $('task-claim').disabled = ro;
  $('task-assign-input').disabled = ro;
  $('task-release').hidden = !mine;
  $('task-release').disabled = ro;
  $('task-force-release').hidden = !holder || mine;
  $('task-force-release').disabled = ro;
  $('task-assign-error').hidden = true;
}

function renderCoord() {
  const c = current.coordination || {};
  const fp = c.footprint || {};
  const box = $('task-coord');
  const parts = [];
  const touches = fp.touches || [];
  parts.push(el('p', {}, touches.length ? `Touches: ${visible(touches.join(', '))}` : 'Touches nothing declared.'));
  if (fp.symbol_count) parts.push(el('p', { class: 'muted' }, `${fp.symbol_count} symbol${fp.symbol_count === 1 ? '' : 's'} in its footprint; ${c.reach_count || 0} depend on them.`));
  if (fp.derived) {
    const d = fp.derived;
    parts.push(el('p', { class: 'muted' }, `Work tree ${d.worktree || '?'} (${(d.files || []).length} files changed${d.head ? ', head ' + String(d.head).slice(0, 12) : ''}).`));
  }
  const overlaps = c.overlaps || [];
  if (overlaps.length) {
    parts.push(el('p', {}, `Overlaps ${c.overlap_count || overlaps.length} active task${(c.overlap_count || overlaps.length) === 1 ? '' : 's'}${(c.overlap_count || 0) > overlaps.length ? ` (the first ${overlaps.length} listed)` : ''}:`));
    parts.push(el('ul', { id: 'task-overlaps', class: 'task-list' }, ...overlaps.map((o) =>
      el('li', { 'data-overlap': o.task_id },
        el('a', { href: `#/board?task=${encodeURIComponent(o.task_id)}` }, o.task_id), ` ${visible(o.title || '')} — ${label(o.status || '')}`,
        o.holder ? `, held by ${visible(o.holder)}` : '', ` (${o.closeness}, ${o.shared_count} shared)`))));
  } else {
    parts.push(el('p', { class: 'muted' }, 'No overlaps with other active tasks.'));
  }
  const changes = (c.changed_under_you && c.changed_under_you.total) || 0;
  if (changes) parts.push(el('p', { class: 'note' }, `${changes} change${changes === 1 ? '' : 's'} under it since it became active.`));
  box.replaceChildren(...parts);
}

// asOf is a "view as of" button: it sets the page's time travel to seq.
function asOf(seq) {
  const b = el('button', { type: 'button', class: 'as-of', 'data-seq': String(seq) }, `view as of seq ${seq}`);
  b.addEventListener('click', () => tt.setAt(String(seq)));
  return b;
}

async function loadHistory(cursor) {
  const id = openID;
  const mine = loadSeq;
  try {
    const { data } = await api('history', { query: { task_id: id, limit: HISTORY_PAGE, cursor, at: tt.at() } });
    if (mine !== loadSeq) return;
    const list = $('task-history');
    if (!cursor) list.replaceChildren();
    for (const ev of data.events || []) {
      const who = ev.actor ? [ev.actor.client, ev.actor.session].filter(Boolean).join(' ') : '';
      list.append(el('li', { 'data-seq': String(ev.seq) },
        el('span', { class: 'seq' }, `#${ev.seq}`), ' ', el('strong', {}, ev.type), ' ', el('span', { class: 'shown-text' }, visible(ev.summary || '')),
        el('span', { class: 'muted' }, ` · ${fmtTime(ev.time)}${who ? ' · ' + visible(who) : ''} `), asOf(ev.seq)));
    }
    if (!cursor && !(data.events || []).length) list.append(el('li', { class: 'muted' }, 'No history.'));
    historyCursor = data.next_cursor || '';
    $('task-history-more').hidden = !historyCursor;
  } catch (err) {
    if (mine === loadSeq) showError(err);
  }
}

// summaryOf is one line of an evidence record's output.
function summaryOf(out) {
  if (!out || typeof out !== 'object') return out === undefined ? '' : String(out);
  for (const k of ['summary', 'reason', 'verdict', 'question', 'formula']) if (typeof out[k] === 'string') return out[k];
  const s = JSON.stringify(out);
  return s.length > 160 ? s.slice(0, 157) + '…' : s;
}

async function loadEvidence(cursor) {
  const id = openID;
  const mine = loadSeq;
  const list = $('task-evidence');
  try {
    const { data } = await api(`tasks/${encodeURIComponent(id)}/evidence`, { query: { limit: EVIDENCE_PAGE, cursor, at: tt.at() } });
    if (mine !== loadSeq) return;
    if (!cursor) list.replaceChildren();
    for (const r of data.records || []) {
      list.append(el('li', { 'data-seq': String(r.seq), 'data-session': r.session_id },
        el('span', { class: 'seq' }, `#${r.seq}`), ' ',
        el('a', { href: `#/evidence/${encodeURIComponent(r.session_id)}` }, r.session_id), ` · ${r.slot}: `, summaryOf(r.output), ' ', asOf(r.seq)));
    }
    if (!cursor && !(data.records || []).length) list.append(el('li', { class: 'muted' }, 'No evidence names this task.'));
    evidenceCursor = data.next_cursor || '';
    $('task-evidence-more').hidden = !evidenceCursor;
  } catch (err) {
    if (mine !== loadSeq) return;
    // The evidence module may be off in this project: say so in place.
    if (!cursor) list.replaceChildren(el('li', { class: 'muted' }, `Evidence not available (${err.code}).`));
    $('task-evidence-more').hidden = true;
  }
}

// formValues reads the form: every field, lists as arrays.
function formValues() {
  const v = {};
  for (const f of FIELDS) {
    const raw = $(f.input).value;
    v[f.key] = f.list ? splitList(raw) : (f.key === 'title' ? raw.trim() : raw);
  }
  return v;
}

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

// patchOf is what changed between the task and the form: the patch.
function patchOf(task, form) {
  const patch = {};
  for (const f of FIELDS) {
    const was = f.list ? (task[f.key] || []) : (task[f.key] || '');
    if (!same(was, form[f.key])) patch[f.key] = form[f.key];
  }
  if (patch.parent === '') patch.parent = null; // null clears it
  return patch;
}

function formError(msg) {
  $('task-form-error').textContent = visible(msg);
  $('task-form-error').hidden = !msg;
}

async function onSave(ev) {
  ev.preventDefault();
  if (!current || tt.readOnly()) return;
  const patch = patchOf(current.task, formValues());
  if (Object.keys(patch).length === 0) {
    formError('Nothing changed.');
    return;
  }
  await sendPatch(current.task.task_id, patch, current.task.revision);
}

// sendPatch PATCHes with If-Match; a stale revision (412) shows the
// conflict box.
async function sendPatch(id, patch, revision) {
  const who = me();
  const body = { patch, request_id: requestID('edit') };
  if (who) body.assignee = who;
  $('task-save').disabled = true;
  try {
    const { data } = await api(`tasks/${encodeURIComponent(id)}`, { method: 'PATCH', headers: { 'If-Match': `"${revision}"` }, body });
    if (current && openID === id) current = { ...current, task: data.task, meta: data.meta };
    formError('');
    $('task-conflict').hidden = true;
    if (openID === id) await load(id);
    $('task-panel').dataset.saved = String(Date.now());
  } catch (err) {
    if (err instanceof ApiError && (err.status === 412 || err.code === 'STALE_REVISION')) {
      await showConflict(id, patch, err);
      return;
    }
    formError(`${err.code}: ${err.message}`);
  } finally {
    $('task-save').disabled = tt.readOnly();
  }
}

function fmt(v) {
  if (v === undefined || v === null || v === '') return '(none)';
  return Array.isArray(v) ? (v.length ? v.join(', ') : '(none)') : String(v);
}

async function showConflict(id, patch, err) {
  let now;
  try {
    now = (await api(`tasks/${encodeURIComponent(id)}`)).data;
  } catch (e) {
    formError(`${e.code}: ${e.message}`);
    return;
  }
  const theirs = now.task;
  const d = err.details || {};
  $('task-conflict-text').textContent = `Someone changed ${id}: it is at revision ${theirs.revision}` +
    (d.expected_revision ? ` (you edited revision ${d.expected_revision})` : '') + '. Their values and yours:';
  const rows = Object.keys(patch).map((k) =>
    el('tr', { 'data-field': k }, el('th', { scope: 'row' }, k), el('td', { class: 'theirs' }, fmt(theirs[k])), el('td', { class: 'mine' }, fmt(patch[k]))));
  $('task-conflict-values').replaceChildren(el('table', {},
    el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'field'), el('th', { scope: 'col' }, 'current'), el('th', { scope: 'col' }, 'yours'))),
    el('tbody', {}, ...rows)));
  const reapply = $('task-conflict-reapply');
  const fresh = reapply.cloneNode(true); // drop an earlier conflict's listener
  reapply.replaceWith(fresh);
  fresh.addEventListener('click', () => sendPatch(id, patch, theirs.revision));
  $('task-conflict').hidden = false;
  fresh.focus();
}

function assignError(msg) {
  $('task-assign-error').textContent = visible(msg);
  $('task-assign-error').hidden = !msg;
}

async function onClaim() {
  if (!current || tt.readOnly()) return;
  const who = $('task-assign-input').value.trim();
  if (!who) {
    assignError('Type the name to claim it for.');
    $('task-assign-input').focus();
    return;
  }
  await write('claim', who);
}

// release gives the task back in its holder's name: the holder's own
// Release, or anyone's Force release once confirmed.
async function release(force) {
  if (!current || tt.readOnly()) return;
  const holder = current.task.assignee;
  if (!holder) return;
  if (force) {
    const dlg = $('force-release-dialog');
    $('force-release-text').textContent = `${current.task.task_id} is held by ${visible(holder)}${me() ? `, not ${visible(me())}` : ''}. Releasing it takes it from them; they are not asked.`;
    dlg.returnValue = '';
    dlg.showModal();
    $('force-release-cancel').focus();
    const answer = await new Promise((resolve) => dlg.addEventListener('close', () => resolve(dlg.returnValue), { once: true }));
    if (answer !== 'force') {
      $('task-force-release').focus();
      return;
    }
  }
  await write('release', holder);
}

async function write(action, who) {
  const id = current.task.task_id;
  try {
    const { data } = await api(`tasks/${encodeURIComponent(id)}/${action}`, { method: 'POST', body: { assignee: who, request_id: requestID(action) } });
    if (current && openID === id) current = { ...current, task: data.task, meta: data.meta };
    assignError('');
    if (action === 'claim') localStorage.setItem('cos.assignee', me() || who);
    await load(id);
    const next = ['task-release', 'task-force-release', 'task-claim'].map($).find((b) => !b.hidden && !b.closest('[hidden]'));
    if (next) next.focus();
  } catch (err) {
    assignError(`${err.code}: ${err.message}`);
  }
}

// The new-task form.

async function openNew() {
  if (tt.readOnly()) return;
  await loadStatuses();
  $('new-task-form').reset();
  $('new-task-error').hidden = true;
  $('new-task').showModal();
  $('new-task-title').focus();
}

async function onCreate(ev) {
  ev.preventDefault();
  const body = {
    title: $('new-task-title').value.trim(),
    description: $('new-task-description').value,
    status: $('new-task-status').value,
    priority: $('new-task-priority').value,
    labels: splitList($('new-task-labels').value),
    depends_on: splitList($('new-task-depends').value),
    request_id: requestID('create'),
  };
  const parent = $('new-task-parent').value.trim();
  if (parent) body.parent = parent;
  if (!body.description) delete body.description;
  try {
    const { data } = await api('tasks', { method: 'POST', body });
    $('new-task').close();
    showError(null);
    await openTask(data.task.task_id);
  } catch (err) {
    $('new-task-error').textContent = `${err.code}: ${visible(err.message)}`;
    $('new-task-error').hidden = false;
  }
}
