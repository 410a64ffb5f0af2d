// Health: the log head, each process's lag behind it, presence, integrity
// and index freshness (cos_health), re-read when events arrive (at most
// once a second) and every 5 seconds while the view is open. With time
// travel on it is read at `at`: the projections and graph counts are the
// past's, the log head, presence and freshness are now's (a note says so).

import { api, el, fmtTime } from './api.js';
import { subscribe } from './live.js';
import * as tt from './timetravel.js';

let visible = false;
let timer = null;
let pending = false;
let last = 0;

const $ = (id) => document.getElementById(id);

export function initHealth() {
  subscribe(() => {
    if (visible) soon();
  });
}

export async function showHealth() {
  visible = true;
  clearInterval(timer);
  timer = setInterval(() => {
    if (!visible || !document.getElementById('view-health') || $('view-health').hidden) {
      visible = false;
      clearInterval(timer);
      return;
    }
    refresh();
  }, 5000);
  await refresh();
}

function soon() {
  if (pending) return;
  const wait = Math.max(0, 1000 - (Date.now() - last));
  pending = true;
  setTimeout(() => {
    pending = false;
    if (visible) refresh();
  }, wait);
}

function field(name, title, ...body) {
  return el('section', { class: 'field', 'data-field': name }, el('h2', {}, title), ...body);
}

function kv(pairs) {
  return el('dl', {}, ...pairs.filter(([, v]) => v !== undefined && v !== null && v !== '').flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, String(v))]));
}

async function refresh() {
  last = Date.now();
  const box = $('health');
  let d;
  try {
    ({ data: d } = await api('health', { query: { at: tt.at() } }));
  } catch (err) {
    box.replaceChildren(el('p', { class: 'error-text' }, `${err.code}: ${err.message}`));
    return;
  }
  const log = d.log || {};
  const head = log.head_seq ?? 0;
  const procs = (d.bus && d.bus.processes) || [];
  const proj = d.projections || {};
  const integ = d.integrity || {};
  const fresh = d.freshness || {};
  const li = d.last_index || {};
  box.replaceChildren(
    ...(tt.readOnly() ? [el('p', { class: 'muted health-at', id: 'health-at' },
      `As of seq ${(d.meta && d.meta.at_seq) ?? tt.at()}: projections and graph counts. The log head, lag, presence and freshness are as they are now.`)] : []),
    field('head', 'Log head',
      kv([['seq', head], ['hash', log.head_hash ? log.head_hash.slice(0, 16) + '…' : ''], ['file', log.path], ['writable', d.writable], ['version', d.version]])),
    field('lag', 'Lag',
      kv([['this server\'s projections', `${proj.lag ?? '?'} events behind (at ${proj.seq ?? '?'})`], ['search index', d.search ? `${d.search.lag} events behind` : '']]),
      procs.length
        ? el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'process'), el('th', {}, 'at seq'), el('th', {}, 'lag'))),
          el('tbody', {}, ...procs.map((p) => el('tr', {}, el('td', {}, `${p.host || ''}:${p.pid || ''}`), el('td', {}, p.position ?? '?'),
            el('td', { class: head - (p.position ?? head) > 0 ? 'warn' : '' }, typeof p.position === 'number' ? String(Math.max(0, head - p.position)) : '?')))))
        : el('p', { class: 'muted' }, 'No other process reports its position.')),
    field('presence', 'Presence',
      kv([['bus', d.bus ? `${d.bus.mode}${d.bus.connected ? ', connected' : ''}${d.bus.hosting ? ', hosting' : ''}` : ''], ['processes', procs.length]]),
      procs.length ? el('ul', {}, ...procs.map((p) => el('li', {}, `${p.host || ''} pid ${p.pid || ''} — seen ${fmtTime(p.last_seen)}, started ${fmtTime(p.started)}`))) : null),
    field('integrity', 'Integrity',
      el('p', { class: integ.ok ? 'ok' : 'bad' }, integ.ok ? 'OK: the log verifies' : `Problem: ${integ.error || integ.message || JSON.stringify(integ)}`),
      kv([['state hash', d.state_hash ? d.state_hash.slice(0, 16) + '…' : ''], ['projections verified', proj.verified]])),
    field('freshness', 'Index freshness',
      kv([['root', fresh.root || li.root], ['indexed commit', li.commit ? li.commit.slice(0, 12) : ''], ['HEAD', fresh.head ? fresh.head.slice(0, 12) : ''],
        ['commits ahead', fresh.commits_ahead], ['files changed since', fresh.changed], ['new files', fresh.new], ['watched', fresh.watched],
        ['last index', li.state ? `${li.state}${li.finished ? ` at seq ${li.finished.seq}, ${fmtTime(li.finished.time)}` : ''}` : 'never']]),
      fresh.paths && fresh.paths.length ? el('p', { class: 'muted' }, `stale: ${fresh.paths.slice(0, 10).join(', ')}${fresh.paths.length > 10 ? ', …' : ''}`) : null),
  );
}
