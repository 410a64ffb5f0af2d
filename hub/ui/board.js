// The board: one column per task status, a card per task with its holder
// and the status of each task it depends on, and claim / release / edit.
// An edit is a compare-and-set (If-Match: the revision the card shows); a
// stale one opens #conflict with the current values. Live task events
// refetch only the task they name and move its card.

import { api, ApiError, el, showError, requestID, visible } from './api.js';
import * as tt from './timetravel.js';
import { subscribe } from './live.js';

// FALLBACK_STATUSES is used only when /api/openapi.json cannot be read;
// the server's own list (the status enum of /api/board) wins.
const FALLBACK_STATUSES = ['todo', 'in_progress', 'blocked', 'review', 'done', 'cancelled'];
const PAGE = 200;

let statuses = null;
const tasks = new Map(); // task_id → row as the board or cos_task_get answered it
const depStatus = new Map(); // task_id of a dependency not on the board → status
let boardSeq = 0; // meta.log_seq of the rows shown
let nextCursor = '';
let loadedKey = null; // filters + at the board was loaded with
let loading = null;
let focusTask = '';

const $ = (id) => document.getElementById(id);

async function loadStatuses() {
  if (statuses) return statuses;
  try {
    const res = await fetch('api/openapi.json', { credentials: 'same-origin' });
    const doc = await res.json();
    const params = doc.paths['/api/board'].get.parameters || [];
    const p = params.find((x) => x.name === 'status');
    const en = p && p.schema && (p.schema.enum || (p.schema.items && p.schema.items.enum));
    statuses = Array.isArray(en) && en.length ? en.filter((s) => s !== '') : FALLBACK_STATUSES;
  } catch {
    statuses = FALLBACK_STATUSES;
  }
  return statuses;
}

function filters() {
  return { status: $('board-status').value, label: $('board-label').value.trim() };
}

function keyOf() {
  return JSON.stringify([filters(), tt.at()]);
}

export function initBoard() {
  const who = $('assignee-input');
  who.value = localStorage.getItem('cos.assignee') || '';
  who.addEventListener('change', () => localStorage.setItem('cos.assignee', who.value.trim()));
  $('board-status').addEventListener('change', () => reload());
  $('board-label').addEventListener('change', () => reload());
  $('board-refresh').addEventListener('click', () => reload());
  $('board-more').addEventListener('click', () => loadPage(nextCursor));
  $('board').addEventListener('click', onCardClick);
  $('conflict-cancel').addEventListener('click', () => $('conflict').close());
  $('edit-cancel').addEventListener('click', () => $('edit-dialog').close());
  $('edit-form').addEventListener('submit', onEditSubmit);
  tt.onChange(() => {
    loadedKey = null;
    updateWriteButtons();
  });
  subscribe(onEvent);
}

// showBoard renders the board view; params.task highlights one card.
export async function showBoard(params) {
  focusTask = params.get('task') || '';
  const st = await loadStatuses();
  const sel = $('board-status');
  if (sel.options.length <= 1) for (const s of st) sel.append(el('option', { value: s }, label(s)));
  if (loadedKey !== keyOf()) await reload();
  highlight();
}

async function reload() {
  tasks.clear();
  nextCursor = '';
  loadedKey = keyOf();
  renderColumns();
  await loadPage('');
}

async function loadPage(cursor) {
  if (loading) return loading;
  loading = (async () => {
    try {
      const f = filters();
      const { data } = await api('board', { query: { status: f.status, label: f.label, cursor, limit: PAGE, at: tt.at() } });
      boardSeq = Math.max(boardSeq, data.meta ? data.meta.log_seq : 0);
      tt.noteSeq(data.meta && data.meta.log_seq);
      for (const row of data.rows || []) tasks.set(row.task_id, row);
      nextCursor = data.next_cursor || '';
      $('board-more').hidden = !nextCursor;
      $('board-more').textContent = nextCursor ? `Load more (${tasks.size} of ${data.total})` : 'Load more';
      for (const row of data.rows || []) placeCard(row);
      await fillDependencies();
      showError(null);
    } catch (err) {
      showError(err);
    } finally {
      loading = null;
    }
  })();
  return loading;
}

function label(status) {
  return status.replace(/_/g, ' ');
}

function renderColumns() {
  const board = $('board');
  board.replaceChildren(
    ...statuses.map((s) =>
      el('section', { class: 'column', 'data-status': s, 'aria-label': label(s) },
        el('h2', {}, label(s), ' ', el('span', { class: 'count' }, '0')),
        el('div', { class: 'cards' })),
    ),
  );
}

function column(status) {
  return $('board').querySelector(`.column[data-status="${CSS.escape(status)}"]`);
}

function updateCounts() {
  for (const col of $('board').querySelectorAll('.column')) {
    col.querySelector('.count').textContent = String(col.querySelector('.cards').children.length);
  }
}

function statusOf(id) {
  if (tasks.has(id)) return tasks.get(id).status;
  return depStatus.get(id);
}

function depsNode(row) {
  const deps = row.depends_on || [];
  const ul = el('ul', { class: 'deps', 'aria-label': 'Depends on' });
  if (deps.length === 0) {
    ul.append(el('li', { class: 'none' }, 'no dependencies'));
    return ul;
  }
  for (const d of deps) {
    const s = statusOf(d);
    const done = s === 'done';
    ul.append(el('li', { class: done ? 'dep done' : 'dep open', 'data-dep': d, title: s ? `${d} is ${label(s)}` : `${d}: status not known yet` },
      done ? '✓ ' : '○ ', el('a', { href: `#/board?task=${encodeURIComponent(d)}` }, d), s ? ` ${label(s)}` : ''));
  }
  return ul;
}

function cardNode(row) {
  const ro = tt.readOnly();
  const holder = row.assignee ? `held by ${row.assignee}` : 'unclaimed';
  return el('article', { class: 'card', 'data-task-id': row.task_id, 'data-revision': row.revision, tabindex: '-1' },
    el('header', {},
      el('span', { class: 'id' }, row.task_id),
      el('span', { class: `prio prio-${row.priority}` }, row.priority || '')),
    el('p', { class: 'title shown-text' }, visible(row.title)),
    coordNode(row),
    el('p', { class: row.assignee ? 'holder held' : 'holder' }, holder),
    depsNode(row),
    (row.labels || []).length ? el('p', { class: 'labels' }, ...(row.labels || []).map((l) => el('span', { class: 'label' }, l))) : null,
    el('div', { class: 'actions' },
      el('button', { type: 'button', 'data-action': 'claim', disabled: ro || Boolean(row.assignee) }, 'Claim'),
      el('button', { type: 'button', 'data-action': 'release', disabled: ro || !row.assignee }, 'Release'),
      el('button', { type: 'button', 'data-action': 'edit', disabled: ro }, 'Edit')),
  );
}

// coordNode is the mark of a task whose code meets other active tasks'
// (overlaps) or changed under it (changes), or null: "⚠ 2 overlaps · 1
// change", its title naming the tasks.
function coordNode(row) {
  const overlaps = row.overlaps || [];
  const changes = row.changes || 0;
  if (!overlaps.length && !changes) return null;
  const parts = [];
  if (overlaps.length) parts.push(`${overlaps.length} overlap${overlaps.length === 1 ? '' : 's'}`);
  if (changes) parts.push(`${changes} change${changes === 1 ? '' : 's'}`);
  const title = [];
  if (overlaps.length) title.push(`Overlaps ${overlaps.join(', ')}`);
  if (changes) title.push(`${changes} change${changes === 1 ? '' : 's'} under it since it became active`);
  return el('p', { class: 'coord', 'data-overlaps': overlaps.join(' '), 'data-changes': String(changes), title: title.join('; ') },
    `⚠ ${parts.join(' · ')}`);
}

// rowOfTask is the board row of a cos_task_get answer.
function rowOfTask(data) {
  const c = data.coordination || {};
  const changes = (c.changed_under_you && c.changed_under_you.total) || 0;
  return { ...data.task, overlaps: (c.overlaps || []).map((o) => o.task_id), changes };
}

// rowOfWrite is the board row of a task write's answer (its overlaps; the
// count of changes under the task as the board last read it).
function rowOfWrite(data) {
  const old = tasks.get(data.task.task_id);
  return { ...data.task, overlaps: (data.overlaps || []).map((o) => o.task_id), changes: old ? old.changes : 0 };
}

function matchesFilters(row) {
  const f = filters();
  if (f.status && row.status !== f.status) return false;
  if (f.label && !(row.labels || []).includes(f.label)) return false;
  return true;
}

// placeCard puts row's card in its status column, replacing the old one
// (in id order), or removes it when the row no longer matches the filters.
function placeCard(row) {
  const old = $('board').querySelector(`.card[data-task-id="${CSS.escape(row.task_id)}"]`);
  const hadFocus = old && old.contains(document.activeElement) ? document.activeElement.dataset.action || 'card' : '';
  if (!matchesFilters(row)) {
    if (old) old.remove();
    tasks.delete(row.task_id);
    updateCounts();
    return;
  }
  const col = column(row.status);
  if (!col) return;
  const card = cardNode(row);
  const cards = col.querySelector('.cards');
  if (old) old.remove();
  const after = [...cards.children].find((c) => idLess(row.task_id, c.dataset.taskId));
  cards.insertBefore(card, after || null);
  if (hadFocus) (card.querySelector(`[data-action="${hadFocus}"]:not([disabled])`) || card).focus();
  updateCounts();
}

function idLess(a, b) {
  const na = Number(a.replace(/\D/g, '')), nb = Number(b.replace(/\D/g, ''));
  return na !== nb ? na < nb : a < b;
}

// fillDependencies fetches the status of dependencies that are not on the
// board (another page, another filter), a few at a time.
async function fillDependencies() {
  const missing = new Set();
  for (const row of tasks.values()) for (const d of row.depends_on || []) if (!tasks.has(d) && !depStatus.has(d)) missing.add(d);
  const ids = [...missing].slice(0, 50);
  for (let i = 0; i < ids.length; i += 6) {
    await Promise.all(ids.slice(i, i + 6).map(async (id) => {
      try {
        const { data } = await api(`tasks/${encodeURIComponent(id)}`, { query: { at: tt.at() } });
        depStatus.set(id, data.task.status);
      } catch {
        depStatus.set(id, '');
      }
    }));
  }
  if (ids.length) refreshDependents(null);
}

// refreshDependents redraws the dependency lines of cards that depend on
// id (every card when id is null).
function refreshDependents(id) {
  for (const row of tasks.values()) {
    if (id !== null && !(row.depends_on || []).includes(id)) continue;
    const card = $('board').querySelector(`.card[data-task-id="${CSS.escape(row.task_id)}"]`);
    if (card) card.querySelector('.deps').replaceWith(depsNode(row));
  }
}

function highlight() {
  if (!focusTask) return;
  const card = $('board').querySelector(`.card[data-task-id="${CSS.escape(focusTask)}"]`);
  for (const c of $('board').querySelectorAll('.card.focused')) c.classList.remove('focused');
  if (card) {
    card.classList.add('focused');
    card.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    card.focus();
  }
}

function updateWriteButtons() {
  for (const card of $('board').querySelectorAll('.card')) {
    const row = tasks.get(card.dataset.taskId);
    if (!row) continue;
    card.replaceWith(cardNode(row));
  }
}

// refetch reads one task and moves its card (live updates and the answer
// of a write).
async function refetch(id) {
  try {
    const { data } = await api(`tasks/${encodeURIComponent(id)}`);
    applyTask(rowOfTask(data));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return;
    showError(err);
  }
}

function applyTask(task) {
  const old = tasks.get(task.task_id);
  if (old && old.revision > task.revision) return; // an older answer arrived late
  tasks.set(task.task_id, task);
  depStatus.delete(task.task_id);
  placeCard(task);
  refreshDependents(task.task_id);
  // The tasks this one now overlaps, or no longer does, show the pair
  // too: read their marks again.
  const now = task.overlaps || [];
  const before = (old && old.overlaps) || [];
  const stale = [];
  for (const id of now) {
    const other = tasks.get(id);
    if (other && !(other.overlaps || []).includes(task.task_id)) stale.push(id);
  }
  for (const id of before) if (!now.includes(id) && tasks.has(id)) stale.push(id);
  scheduleCoord(stale);
}

// Marks read again after a change elsewhere (another task's footprint, an
// index), batched: one read per task per burst of events.
const coordDue = new Set();
let coordTimer = null;
const coordDelayMs = 300;

function scheduleCoord(ids) {
  if (!ids.length) return;
  for (const id of ids) coordDue.add(id);
  clearTimeout(coordTimer);
  coordTimer = setTimeout(() => {
    const due = [...coordDue];
    coordDue.clear();
    for (const id of due) if (tasks.has(id)) refetch(id);
  }, coordDelayMs);
}

// openClaimed are the loaded tasks a change in the code can land under:
// claimed and neither done nor cancelled.
function openClaimed() {
  return [...tasks.values()]
    .filter((r) => r.assignee && r.status !== 'done' && r.status !== 'cancelled')
    .map((r) => r.task_id);
}

function onEvent(ev) {
  if (ev.type === 'graph.file_extracted' || ev.type === 'graph.file_removed') {
    if (!tt.readOnly() && loadedKey !== null && ev.seq > boardSeq) scheduleCoord(openClaimed());
    return;
  }
  if (!ev.type || !ev.type.startsWith('task.') || tt.readOnly() || loadedKey === null) return;
  if (ev.seq <= boardSeq) return; // already in what the board shows
  const id = (ev.stream || '').replace(/^(task|footprint):/, '');
  if (!id) return;
  // A new task past the last loaded page stays there until "load more".
  if (!tasks.has(id) && nextCursor && !(ev.type === 'task.created')) {
    if (![...tasks.values()].some((r) => (r.depends_on || []).includes(id))) return;
  }
  refetch(id);
}

function assignee() {
  const v = $('assignee-input').value.trim();
  if (!v) {
    showError(Object.assign(new Error('Type your name in "Your name" first: claims are made in that name.'), { code: 'E_ARGUMENT' }));
    $('assignee-input').focus();
    return '';
  }
  localStorage.setItem('cos.assignee', v);
  return v;
}

async function onCardClick(ev) {
  const btn = ev.target.closest('button[data-action]');
  if (!btn || btn.disabled) return;
  const card = btn.closest('.card');
  const id = card.dataset.taskId;
  if (tt.readOnly()) return;
  const action = btn.dataset.action;
  if (action === 'edit') {
    openEdit(id);
    return;
  }
  const row = tasks.get(id);
  const who = action === 'release' && row && row.assignee ? row.assignee : assignee();
  if (!who) return;
  btn.disabled = true;
  try {
    const { data } = await api(`tasks/${encodeURIComponent(id)}/${action}`, { method: 'POST', body: { assignee: who, request_id: requestID(action) } });
    showError(null);
    applyTask(rowOfWrite(data));
  } catch (err) {
    showError(err);
    btn.disabled = false;
    if (err instanceof ApiError && err.category === 'conflict') refetch(id);
  }
}

// The edit dialog: the fields a person edits most; the patch holds only
// what changed.
const EDITABLE = ['title', 'status', 'priority', 'description'];
let editing = null; // {task, mine (patch)}

async function openEdit(id) {
  let task;
  try {
    ({ data: { task } } = await api(`tasks/${encodeURIComponent(id)}`));
  } catch (err) {
    showError(err);
    return;
  }
  editing = { task, mine: null };
  $('edit-title').textContent = `Edit ${task.task_id} (revision ${task.revision})`;
  $('edit-title-input').value = task.title || '';
  const st = $('edit-status');
  st.replaceChildren(...statuses.map((s) => el('option', { value: s, selected: s === task.status }, label(s))));
  $('edit-priority').value = task.priority || '';
  $('edit-description').value = task.description || '';
  $('edit-error').hidden = true;
  $('edit-dialog').showModal();
  $('edit-title-input').focus();
}

async function onEditSubmit(ev) {
  ev.preventDefault();
  if (!editing) return;
  const form = { title: $('edit-title-input').value, status: $('edit-status').value, priority: $('edit-priority').value.trim(), description: $('edit-description').value };
  const patch = {};
  for (const k of EDITABLE) if ((editing.task[k] || '') !== form[k]) patch[k] = form[k];
  if (Object.keys(patch).length === 0) {
    $('edit-dialog').close();
    return;
  }
  editing.mine = patch;
  const ok = await sendPatch(editing.task.task_id, patch, editing.task.revision, (msg) => {
    $('edit-error').textContent = msg;
    $('edit-error').hidden = false;
  });
  if (ok) $('edit-dialog').close();
}

// sendPatch PATCHes with If-Match; a stale revision (412) opens #conflict.
// It reports whether the write committed.
async function sendPatch(id, patch, revision, onFail) {
  try {
    const { data } = await api(`tasks/${encodeURIComponent(id)}`, { method: 'PATCH', headers: { 'If-Match': `"${revision}"` }, body: editBody(patch) });
    showError(null);
    applyTask(rowOfWrite(data));
    return true;
  } catch (err) {
    if (err instanceof ApiError && (err.status === 412 || err.code === 'STALE_REVISION')) {
      $('edit-dialog').close();
      await showConflict(id, patch, err);
      return false;
    }
    onFail(`${err.code}: ${err.message}`);
    return false;
  }
}

// editBody is the PATCH body: the patch, and the name typed in "Your
// name" (a holder changing their own task's status must say who they are).
function editBody(patch) {
  const who = $('assignee-input').value.trim();
  return who ? { patch, assignee: who, request_id: requestID('edit') } : { patch, request_id: requestID('edit') };
}

async function showConflict(id, patch, err) {
  let current;
  try {
    current = rowOfTask((await api(`tasks/${encodeURIComponent(id)}`)).data);
  } catch (e) {
    showError(e);
    return;
  }
  applyTask(current);
  const d = err.details || {};
  $('conflict-text').textContent = `${id} is at revision ${current.revision}` +
    (d.expected_revision ? ` (you edited revision ${d.expected_revision})` : '') +
    (current.hash ? `, hash ${current.hash.slice(0, 12)}` : '') + '. Their values and yours:';
  const rows = Object.keys(patch).map((k) =>
    el('tr', { 'data-field': k }, el('th', { scope: 'row' }, k), el('td', { class: 'theirs' }, fmt(current[k])), el('td', { class: 'mine' }, fmt(patch[k]))));
  const others = ['status', 'assignee', 'title'].filter((k) => !(k in patch)).map((k) =>
    el('tr', { 'data-field': k }, el('th', { scope: 'row' }, k), el('td', { class: 'theirs' }, fmt(current[k])), el('td', { class: 'mine muted' }, '—')));
  $('conflict-values').replaceChildren(el('table', {},
    el('thead', {}, el('tr', {}, el('th', {}, 'field'), el('th', {}, 'current'), el('th', {}, 'yours'))),
    el('tbody', {}, ...rows, ...others)));
  const reapply = $('conflict-reapply');
  const fresh = reapply.cloneNode(true); // drop an earlier conflict's listener
  reapply.replaceWith(fresh);
  fresh.addEventListener('click', async () => {
    $('conflict').close();
    await sendPatch(id, patch, current.revision, (msg) => showError(Object.assign(new Error(msg), {})));
  });
  $('conflict').showModal();
  fresh.focus();
}

function fmt(v) {
  if (v === undefined || v === null || v === '') return '(none)';
  return Array.isArray(v) ? v.join(', ') : String(v);
}
