// The board: one column per task status, a card per task with its holder
// and the status of each task it depends on, and claim / release / open
// (the task's page, task.js, where every field is edited).
// Each column loads its own pages (its count is the true total under the
// filters: "50 of 229" until all are loaded) and more on scroll or its
// "Load more" button. The filters (text, assignee, label prefix, the
// columns shown) live in the URL: #/board?q=…&assignee=…&label=…&status=todo,review.
// Live task events
// refetch only the task they name and move its card, loaded or not.

import { api, ApiError, el, showError, requestID, visible } from './api.js';
import * as tt from './timetravel.js';
import { subscribe } from './live.js';

// FALLBACK_STATUSES is used only when /api/openapi.json cannot be read;
// the server's own list (the status enum of /api/board) wins.
const FALLBACK_STATUSES = ['todo', 'in_progress', 'blocked', 'review', 'done', 'cancelled'];
// PAGE is how many cards a column loads at a time.
const PAGE = 50;
// FILTER_DELAY_MS is how long typing in a filter waits before it reloads.
const FILTER_DELAY_MS = 250;
// RECOUNT_DELAY_MS batches the column counts read again after live events.
const RECOUNT_DELAY_MS = 300;

let statuses = null;
const tasks = new Map(); // task_id → row as the board or cos_task_get answered it
const depStatus = new Map(); // task_id of a dependency not on the board → status
// cols: status → {total, cursor, seq (its walk's log seq), started, loading}.
const cols = new Map();
const changedSince = new Map(); // task_id → seq of its last live event
let boardSeq = 0; // the oldest walk seq of the columns shown
let loadedKey = null; // filters + at the board was loaded with
let focusID = '';
let shownOnce = false; // the board view was shown in this page's life

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

// filters are the board's filters as the toolbar holds them; statuses []
// is every column.
function filters() {
  const boxes = [...$('board-statuses').querySelectorAll('input[type=checkbox]')];
  const on = boxes.filter((b) => b.checked).map((b) => b.value);
  return {
    q: $('board-q').value.trim(),
    assignee: $('board-assignee').value.trim(),
    label: $('board-label').value.trim(),
    statuses: on.length === boxes.length ? [] : on,
  };
}

function filtered(f) {
  return Boolean(f.q || f.assignee || f.label || f.statuses.length);
}

// shownStatuses are the columns on the board.
function shownStatuses() {
  const f = filters();
  return f.statuses.length ? statuses.filter((s) => f.statuses.includes(s)) : statuses;
}

// labelArg is the board's label argument: the label typed is a prefix.
function labelArg(l) {
  return !l || l.endsWith('*') ? l : `${l}*`;
}

function keyOf() {
  return JSON.stringify([filters(), tt.at()]);
}

export function initBoard() {
  const who = $('assignee-input');
  who.value = localStorage.getItem('cos.assignee') || '';
  who.addEventListener('change', () => localStorage.setItem('cos.assignee', who.value.trim()));
  let typing = null;
  for (const id of ['board-q', 'board-assignee', 'board-label']) {
    $(id).addEventListener('input', () => {
      clearTimeout(typing);
      typing = setTimeout(filtersChanged, FILTER_DELAY_MS);
    });
    $(id).addEventListener('change', () => {
      clearTimeout(typing);
      filtersChanged();
    });
  }
  $('board-statuses').addEventListener('change', filtersChanged);
  $('board-clear').addEventListener('click', clearFilters);
  $('board-refresh').addEventListener('click', () => reload());
  $('board').addEventListener('click', onCardClick);
  $('board-empty').addEventListener('click', (ev) => {
    if (ev.target.closest('button[data-clear]')) clearFilters();
    if (ev.target.closest('button[data-new]')) $('board-new').click();
  });
  tt.onChange(() => {
    loadedKey = null;
    updateWriteButtons();
  });
  subscribe(onEvent);
}

function ensureStatusBoxes() {
  const set = $('board-statuses');
  if (set.querySelector('input')) return;
  for (const s of statuses) {
    set.append(el('label', {}, el('input', { type: 'checkbox', value: s, checked: true }), ` ${label(s)}`));
  }
}

// readURL sets the toolbar from the route's parameters (a reload, a
// shared link).
function readURL(params) {
  $('board-q').value = params.get('q') || '';
  $('board-assignee').value = params.get('assignee') || '';
  $('board-label').value = params.get('label') || '';
  const want = (params.get('status') || '').split(',').map((s) => s.trim()).filter((s) => statuses.includes(s));
  for (const b of $('board-statuses').querySelectorAll('input[type=checkbox]')) b.checked = !want.length || want.includes(b.value);
}

// writeURL puts the filters in the URL, keeping its other parameters.
function writeURL() {
  const [path, query = ''] = location.hash.replace(/^#/, '').split('?');
  const p = new URLSearchParams(query);
  const f = filters();
  const put = (k, v) => (v ? p.set(k, v) : p.delete(k));
  put('q', f.q);
  put('assignee', f.assignee);
  put('label', f.label);
  put('status', f.statuses.join(','));
  const qs = p.toString().replace(/%2C/g, ',');
  history.replaceState(history.state, '', `#${path || '/board'}${qs ? `?${qs}` : ''}`);
}

function filtersChanged() {
  if (loadedKey === keyOf()) return;
  writeURL();
  reload();
}

function clearFilters() {
  $('board-q').value = '';
  $('board-assignee').value = '';
  $('board-label').value = '';
  for (const b of $('board-statuses').querySelectorAll('input[type=checkbox]')) b.checked = true;
  filtersChanged();
  $('board-q').focus();
}

// showBoard renders the board view; params holds the filters and task,
// the card to show and focus. Back on the board from another view
// (#/board, no filters named) the filters stay as they were.
export async function showBoard(params) {
  focusID = params.get('task') || '';
  await loadStatuses();
  ensureStatusBoxes();
  const named = ['q', 'assignee', 'label', 'status'].some((k) => params.has(k));
  if (named || !shownOnce) readURL(params);
  else writeURL();
  shownOnce = true;
  if (loadedKey !== keyOf()) await reload();
  if (focusID) await focusTask(focusID);
}

async function reload() {
  const key = keyOf();
  loadedKey = key;
  tasks.clear();
  cols.clear();
  changedSince.clear();
  const shown = shownStatuses();
  for (const s of shown) cols.set(s, { total: 0, cursor: '', seq: 0, started: false, loading: null });
  renderColumns(shown);
  $('board-empty').hidden = true;
  await Promise.all(shown.map((s) => loadColumn(s)));
  if (loadedKey !== key) return;
  boardSeq = Math.min(...[...cols.values()].map((c) => c.seq));
  updateEmpty();
  await fillDependencies();
}

// loadColumn reads the next page of one column (its first when none was
// read). A row of a task changed since the column's walk began is read
// again rather than shown as the walk's seq had it.
function loadColumn(status) {
  const col = cols.get(status);
  if (!col) return Promise.resolve();
  if (col.loading) return col.loading;
  if (col.started && !col.cursor) return Promise.resolve();
  col.loading = (async () => {
    try {
      const f = filters();
      const { data } = await api('board', {
        query: { status, assignee: f.assignee, label: labelArg(f.label), query: f.q, cursor: col.cursor, limit: PAGE, at: tt.at() },
      });
      if (cols.get(status) !== col) return; // reloaded meanwhile
      tt.noteSeq(data.meta && data.meta.log_seq);
      if (!col.started) col.seq = data.walk_log_seq || (data.meta ? data.meta.log_seq : 0);
      col.started = true;
      col.total = data.total || 0;
      col.cursor = data.next_cursor || '';
      for (const row of data.rows || []) {
        const since = changedSince.get(row.task_id);
        if (since && since > col.seq) {
          refetch(row.task_id);
          continue;
        }
        const old = tasks.get(row.task_id);
        if (old && old.revision >= row.revision) continue;
        tasks.set(row.task_id, row);
        placeCard(row, true);
      }
      updateColumn(status);
      showError(null);
    } catch (err) {
      showError(err);
    } finally {
      col.loading = null;
    }
  })();
  return col.loading;
}

// loadMore reads a column's next page; its button, still in view, asks
// for the one after.
async function loadMore(status) {
  await loadColumn(status);
  const btn = moreButton(status);
  if (btn && !btn.hidden && seen) {
    seen.unobserve(btn);
    seen.observe(btn);
  }
  await fillDependencies();
}

// seen loads a column's next page when its "Load more" button scrolls
// into view.
const seen = typeof IntersectionObserver === 'function'
  ? new IntersectionObserver((entries) => {
    for (const e of entries) if (e.isIntersecting && !e.target.hidden && e.target.isConnected) loadMore(e.target.dataset.more);
  }, { rootMargin: '0px 0px 120px 0px' })
  : null;

function moreButton(status) {
  return $('board').querySelector(`button[data-more="${CSS.escape(status)}"]`);
}

// updateColumn writes a column's count ("50 of 229" while some are not
// loaded) and its "Load more" button.
function updateColumn(status) {
  const col = cols.get(status);
  const sec = column(status);
  if (!col || !sec) return;
  const n = sec.querySelectorAll('.card').length;
  const total = Math.max(col.total, n);
  sec.dataset.total = String(total);
  sec.dataset.shown = String(n);
  sec.querySelector('.count').textContent = n < total ? `${n} of ${total}` : String(total);
  const btn = moreButton(status);
  btn.hidden = !col.cursor;
  btn.textContent = `Load more (${n} of ${total})`;
}

function updateCounts() {
  for (const s of cols.keys()) updateColumn(s);
}

// updateEmpty says why the board is empty: no tasks at all, or none the
// filters match (with a way to clear them).
function updateEmpty() {
  const box = $('board-empty');
  const total = [...cols.values()].reduce((n, c) => n + c.total, 0);
  if (total > 0 || $('board').querySelector('.card')) {
    box.hidden = true;
    return;
  }
  if (filtered(filters())) {
    box.replaceChildren('No task matches these filters. ',
      el('button', { type: 'button', 'data-clear': '1' }, 'Clear filters'));
  } else if (tt.at()) {
    box.replaceChildren(`No tasks as of ${/^\d+$/.test(tt.at()) ? 'seq ' : ''}${tt.at()}.`);
  } else {
    box.replaceChildren('No tasks yet. Create one with ', el('button', { type: 'button', 'data-new': '1' }, 'New task'),
      ' (or press n); an agent creates one with cos_task_create, a script with POST /api/tasks.');
  }
  box.hidden = false;
}

// scheduleRecount reads the columns' totals again after live events, one
// read per column per burst.
let recountTimer = null;
function scheduleRecount() {
  clearTimeout(recountTimer);
  recountTimer = setTimeout(async () => {
    const key = loadedKey;
    const f = filters();
    await Promise.all([...cols.entries()].map(async ([status, col]) => {
      try {
        const { data } = await api('board', { query: { status, assignee: f.assignee, label: labelArg(f.label), query: f.q, limit: 1 } });
        if (loadedKey !== key || cols.get(status) !== col) return;
        col.total = data.total || 0;
        updateColumn(status);
      } catch {
        /* the count stays as it was */
      }
    }));
    if (loadedKey === key) updateEmpty();
  }, RECOUNT_DELAY_MS);
}

function label(status) {
  return status.replace(/_/g, ' ');
}

function renderColumns(shown) {
  const board = $('board');
  board.replaceChildren(
    ...shown.map((s) =>
      el('section', { class: 'column', 'data-status': s, 'aria-label': label(s) },
        el('h2', {}, label(s), ' ', el('span', { class: 'count' }, '…')),
        el('div', { class: 'cards' },
          el('button', { type: 'button', class: 'more', 'data-more': s, hidden: true }, 'Load more'))),
    ),
  );
  if (seen) for (const b of board.querySelectorAll('button[data-more]')) seen.observe(b);
}

function column(status) {
  return $('board').querySelector(`.column[data-status="${CSS.escape(status)}"]`);
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
  const holder = row.assignee ? `held by ${visible(row.assignee)}` : 'unclaimed';
  return el('article', { class: 'card', 'data-task-id': row.task_id, 'data-revision': row.revision, tabindex: '-1' },
    el('header', {},
      el('span', { class: 'id' }, row.task_id),
      el('span', { class: `prio prio-${row.priority}` }, row.priority || '')),
    el('p', { class: 'title shown-text' }, visible(row.title)),
    coordNode(row),
    el('p', { class: row.assignee ? 'holder held' : 'holder' }, holder),
    depsNode(row),
    (row.labels || []).length ? el('p', { class: 'labels' }, ...(row.labels || []).map((l) => el('span', { class: 'label shown-text' }, visible(l)))) : null,
    el('div', { class: 'actions' },
      el('button', { type: 'button', 'data-action': 'claim', disabled: ro || Boolean(row.assignee) }, 'Claim'),
      el('button', { type: 'button', 'data-action': 'release', disabled: ro || !row.assignee }, 'Release'),
      el('button', { type: 'button', 'data-action': 'open', title: 'Open the task: every field, its history and evidence' }, 'Open')),
  );
}

// coordNode is the mark of a task whose code meets other active tasks'
// (overlaps) or changed under it (changes), or null: "⚠ 2 overlaps · 1
// change", its title naming the tasks.
function coordNode(row) {
  const overlaps = row.overlaps || [];
  // A task or write answer lists the first overlaps and counts them all.
  const n = typeof row.overlap_count === 'number' ? Math.max(row.overlap_count, overlaps.length) : overlaps.length;
  const changes = row.changes || 0;
  if (!n && !changes) return null;
  const parts = [];
  if (n) parts.push(`${n} overlap${n === 1 ? '' : 's'}`);
  if (changes) parts.push(`${changes} change${changes === 1 ? '' : 's'}`);
  const title = [];
  if (n) title.push(`Overlaps ${overlaps.join(', ')}${n > overlaps.length ? ` and ${n - overlaps.length} more` : ''}`);
  if (changes) title.push(`${changes} change${changes === 1 ? '' : 's'} under it since it became active`);
  return el('p', { class: 'coord', 'data-overlaps': overlaps.join(' '), 'data-changes': String(changes), title: title.join('; ') },
    `⚠ ${parts.join(' · ')}`);
}

// rowOfTask is the board row of a cos_task_get answer.
function rowOfTask(data) {
  const c = data.coordination || {};
  const changes = (c.changed_under_you && c.changed_under_you.total) || 0;
  return { ...data.task, overlaps: (c.overlaps || []).map((o) => o.task_id), overlap_count: c.overlap_count, changes };
}

// rowOfWrite is the board row of a task write's answer (its overlaps; the
// count of changes under the task as the board last read it).
function rowOfWrite(data) {
  const old = tasks.get(data.task.task_id);
  return { ...data.task, overlaps: (data.overlaps || []).map((o) => o.task_id), overlap_count: data.overlap_count, changes: old ? old.changes : 0 };
}

// matchesFilters is the board's filter on a whole task (a row of
// cos_task_get or of a write, description included), as the server
// applies it.
function matchesFilters(row) {
  const f = filters();
  if (!shownStatuses().includes(row.status)) return false;
  if (f.assignee && row.assignee !== f.assignee) return false;
  if (f.label) {
    const prefix = labelArg(f.label).slice(0, -1);
    if (!(row.labels || []).some((l) => l.startsWith(prefix))) return false;
  }
  const text = `${row.task_id}\n${row.title || ''}\n${row.description || ''}`.toLowerCase();
  return f.q.toLowerCase().split(/\s+/).filter(Boolean).every((w) => text.includes(w));
}

// placeCard puts row's card in its status column, replacing the old one
// (in id order), or removes it when the row no longer matches the filters
// (a row of a board page, matched by the server, is trusted).
function placeCard(row, trusted = false) {
  const old = cardOf(row.task_id);
  const hadFocus = old && old.contains(document.activeElement) ? document.activeElement.dataset.action || 'card' : '';
  if (!trusted && !matchesFilters(row)) {
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
  const after = [...cards.querySelectorAll('.card')].find((c) => idLess(row.task_id, c.dataset.taskId));
  cards.insertBefore(card, after || cards.querySelector('.more'));
  if (hadFocus) (card.querySelector(`[data-action="${hadFocus}"]:not([disabled])`) || card).focus();
  updateCounts();
}

function cardOf(id) {
  return $('board').querySelector(`.card[data-task-id="${CSS.escape(id)}"]`);
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
    const card = cardOf(row.task_id);
    if (card) card.querySelector('.deps').replaceWith(depsNode(row));
  }
}

// focusTask shows task id's card, highlighted and focused: read with
// cos_task_get and put in its column when no loaded page holds it. It
// resolves to the card, or null (no such task, or its column is not
// shown: #board-empty says so). The deep link #/board?task=ID calls it.
export async function focusTask(id) {
  focusID = id;
  let card = cardOf(id);
  if (!card) {
    let row;
    try {
      row = rowOfTask((await api(`tasks/${encodeURIComponent(id)}`, { query: { at: tt.at() } })).data);
    } catch (err) {
      showError(err);
      return null;
    }
    if (focusID !== id) return null;
    const old = tasks.get(id);
    if (!old || old.revision < row.revision) tasks.set(id, row);
    if (column(row.status)) {
      placeCard(tasks.get(id), true);
      card = cardOf(id);
    } else {
      const box = $('board-empty');
      box.replaceChildren(`${id} is ${label(row.status)}; the column filter hides that column. `,
        el('button', { type: 'button', 'data-clear': '1' }, 'Clear filters'));
      box.hidden = false;
    }
  }
  for (const c of $('board').querySelectorAll('.card.focused')) c.classList.remove('focused');
  if (!card) return null;
  card.classList.add('focused');
  card.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  card.focus();
  return card;
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
  let id = (ev.stream || '').replace(/^(task|footprint):/, '');
  // task.relations_updated is on the board's relations stream: its data names the task.
  if (ev.data && typeof ev.data.task_id === 'string') id = ev.data.task_id;
  if (!id || !/^[A-Za-z]+-\d+$/.test(id)) return;
  // The task is read and shown in its column, whether or not a loaded
  // page holds it; the columns' counts are read again.
  changedSince.set(id, ev.seq);
  refetch(id);
  scheduleRecount();
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
  const more = ev.target.closest('button[data-more]');
  if (more) {
    loadMore(more.dataset.more);
    return;
  }
  const btn = ev.target.closest('button[data-action]');
  if (!btn || btn.disabled) return;
  const card = btn.closest('.card');
  const id = card.dataset.taskId;
  if (tt.readOnly()) return;
  const action = btn.dataset.action;
  if (action === 'open') return; // task.js opens the task's page
  const row = tasks.get(id);
  const who = action === 'release' && row && row.assignee ? row.assignee : assignee();
  if (!who) return;
  // Focus stays on the card through the write (a disabled button drops it).
  card.focus();
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

