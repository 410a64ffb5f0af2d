// The feed: committed events as they arrive, newest first, at most
// MAX_ROWS rows. Pause holds new rows back (counted) until resume; the
// filter box keeps rows whose type or stream contains its text. Each row
// links to what the event changed, and to the page as of its seq. With
// time travel on, the feed shows the events up to `at` (cos_history) and
// holds the live ones back until the page is back at now.

import { api, el, fmtTime, visible } from './api.js';
import { subscribe } from './live.js';
import * as tt from './timetravel.js';

const MAX_ROWS = 500;
// PAST_ROWS is how many events up to `at` the feed shows.
const PAST_ROWS = 100;
let paused = false;
const held = [];
let filter = '';
// shownAt is the `at` the list shows ('' for the live rows); stash keeps
// the live rows while it shows the past.
let shownAt = '';
let stash = null;

const $ = (id) => document.getElementById(id);

export function initFeed() {
  subscribe(onEvent);
  $('feed-pause').addEventListener('click', () => setPaused(!paused));
  $('feed-filter').addEventListener('input', () => {
    filter = $('feed-filter').value.trim().toLowerCase();
    for (const li of $('feed').children) li.hidden = !matches(li.dataset.type, li.dataset.stream);
    count();
  });
}

export async function showFeed() {
  const want = tt.at();
  if (want !== shownAt) {
    if (want) await showPast(want);
    else backToNow();
  }
  count();
}

// showPast replaces the rows by the last PAST_ROWS events up to at.
async function showPast(at) {
  const list = $('feed');
  const { data } = at === '0' ? { data: {} } : await api('history', { query: { until: at, limit: PAST_ROWS } });
  if (tt.at() !== at) return; // the page moved on meanwhile
  if (stash === null) stash = [...list.children];
  list.replaceChildren(...(data.events || []).map(row));
  shownAt = at;
}

// backToNow puts the live rows back, and the events held meanwhile.
function backToNow() {
  $('feed').replaceChildren(...(stash || []));
  stash = null;
  shownAt = '';
  if (!paused) {
    for (const ev of held.splice(0)) add(ev);
  }
}

function setPaused(p) {
  paused = p;
  const b = $('feed-pause');
  b.textContent = p ? 'Resume' : 'Pause';
  b.setAttribute('aria-pressed', String(p));
  if (!p && !shownAt) {
    for (const ev of held.splice(0)) add(ev);
  }
  count();
}

function matches(type, stream) {
  return !filter || (type || '').toLowerCase().includes(filter) || (stream || '').toLowerCase().includes(filter);
}

function onEvent(ev) {
  if (paused || tt.readOnly() || shownAt) {
    held.push(ev);
    if (held.length > MAX_ROWS) held.shift();
    count();
    return;
  }
  add(ev);
}

// row is the feed's row of ev: an event of the stream or a cos_history
// row (summary in place of data).
function row(ev) {
  return el('li', { 'data-seq': ev.seq, 'data-type': ev.type || '', 'data-stream': ev.stream || '', hidden: !matches(ev.type, ev.stream) },
    el('span', { class: 'seq' }, `#${ev.seq}`), ' ',
    el('time', { datetime: ev.time || '' }, fmtTime(ev.time)), ' ',
    el('span', { class: 'type' }, ev.type || ''), ' ',
    target(ev),
    actorText(ev) ? el('span', { class: 'actor muted' }, ` by ${visible(actorText(ev))}`) : null,
    summary(ev) ? el('span', { class: 'summary' }, ' — ', el('span', { class: 'shown-text' }, visible(summary(ev)))) : null, ' ',
    el('a', { class: 'asof', href: `#/feed?at=${ev.seq}`, title: `Show every view as it was at seq ${ev.seq}` }, 'view as of'));
}

function add(ev) {
  const list = $('feed');
  list.prepend(row(ev));
  while (list.children.length > MAX_ROWS) list.lastElementChild.remove();
  count();
}

function actorText(ev) {
  const a = ev.actor;
  if (!a) return '';
  if (typeof a === 'string') return a;
  const where = a.host ? `${a.host}${a.pid ? `:${a.pid}` : ''}` : '';
  const who = a.client || a.name || a.agent || '';
  return who && where ? `${who} on ${where}` : who || where;
}

// target is the link to what ev changed: a task on the board, a file in
// the graph, a session's evidence; otherwise the stream's name.
function target(ev) {
  const stream = ev.stream || '';
  const d = ev.data || {};
  if (stream.startsWith('task:')) {
    const id = stream.slice(5);
    return el('a', { href: `#/board?task=${encodeURIComponent(id)}` }, id);
  }
  if (stream.startsWith('evidence:')) {
    const id = stream.slice(9);
    return el('a', { href: `#/evidence/${encodeURIComponent(id)}` }, `session ${id}`);
  }
  if (ev.type && ev.type.startsWith('graph.')) {
    if (d.path) return el('a', { href: `#/graph?path=${encodeURIComponent(d.path)}` }, d.path);
    const uid = d.uid || (d.node && d.node.uid) || (d.edge && d.edge.source);
    if (uid) return el('a', { href: `#/graph?uid=${encodeURIComponent(uid)}` }, uid);
  }
  return el('span', { class: 'stream' }, stream);
}

function summary(ev) {
  if (typeof ev.summary === 'string' && ev.summary) return ev.summary;
  const d = ev.data;
  if (!d) return ev.data_bytes ? `${ev.data_bytes} bytes of data` : '';
  if (d.title) return d.title;
  if (d.assignee) return d.assignee;
  if (d.patch && typeof d.patch === 'object') return `changed ${Object.keys(d.patch).join(', ')}`;
  if (d.root) return d.root;
  if (d.output && typeof d.output === 'object') return d.output.summary || d.output.reason || '';
  return '';
}

function count() {
  const shown = [...$('feed').children].filter((li) => !li.hidden).length;
  const past = shownAt ? ` up to ${/^\d+$/.test(shownAt) ? 'seq ' : ''}${shownAt}` : '';
  const why = paused && !shownAt ? 'while paused' : 'until the page is back at now';
  $('feed-count').textContent = `${shown} shown${past}` + (held.length ? `, ${held.length} live held ${why}` : '');
}
