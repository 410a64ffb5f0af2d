// The feed: committed events as they arrive, newest first, at most
// MAX_ROWS rows. Pause holds new rows back (counted) until resume; the
// filter box keeps rows whose type or stream contains its text. Each row
// links to what the event changed.

import { el, fmtTime, visible } from './api.js';
import { subscribe } from './live.js';

const MAX_ROWS = 500;
let paused = false;
const held = [];
let filter = '';

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

export function showFeed() {
  count();
}

function setPaused(p) {
  paused = p;
  const b = $('feed-pause');
  b.textContent = p ? 'Resume' : 'Pause';
  b.setAttribute('aria-pressed', String(p));
  if (!p) {
    for (const ev of held.splice(0)) add(ev);
  }
  count();
}

function matches(type, stream) {
  return !filter || (type || '').toLowerCase().includes(filter) || (stream || '').toLowerCase().includes(filter);
}

function onEvent(ev) {
  if (paused) {
    held.push(ev);
    if (held.length > MAX_ROWS) held.shift();
    count();
    return;
  }
  add(ev);
}

function add(ev) {
  const list = $('feed');
  const li = el('li', { 'data-seq': ev.seq, 'data-type': ev.type || '', 'data-stream': ev.stream || '', hidden: !matches(ev.type, ev.stream) },
    el('span', { class: 'seq' }, `#${ev.seq}`), ' ',
    el('time', { datetime: ev.time || '' }, fmtTime(ev.time)), ' ',
    el('span', { class: 'type' }, ev.type || ''), ' ',
    target(ev),
    actorText(ev) ? el('span', { class: 'actor muted' }, ` by ${actorText(ev)}`) : null,
    summary(ev) ? el('span', { class: 'summary' }, ' — ', el('span', { class: 'shown-text' }, visible(summary(ev)))) : null);
  list.prepend(li);
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
  $('feed-count').textContent = `${shown} shown` + (held.length ? `, ${held.length} held while paused` : '');
}
