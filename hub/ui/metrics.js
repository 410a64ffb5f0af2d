// Metrics: every recorded metric by name (cos_metric_list, GET
// /api/metrics) with its latest value and a table of its last points,
// in the state at the page's `at`. While the view is open at now, a
// metric recorded anywhere re-reads it (at most once a second). Each
// point's seq links to the page as of that seq.

import { api, el, fmtTime } from './api.js';
import { subscribe } from './live.js';
import * as tt from './timetravel.js';

// POINTS is how many of each metric's last points the table shows.
const POINTS = 5;

let pending = false;
let last = 0;
let typing = null;

const $ = (id) => document.getElementById(id);

function open() {
  return !$('view-metrics').hidden;
}

export function initMetrics() {
  subscribe((ev) => {
    if (ev.type === 'metric.recorded' && !tt.readOnly() && open()) soon();
  });
  $('metrics-prefix').addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(refresh, 250);
  });
}

export async function showMetrics() {
  await refresh();
}

function soon() {
  if (pending) return;
  pending = true;
  setTimeout(() => {
    pending = false;
    if (open() && !tt.readOnly()) refresh();
  }, Math.max(0, 1000 - (Date.now() - last)));
}

async function refresh() {
  last = Date.now();
  const box = $('metrics');
  const prefix = $('metrics-prefix').value.trim();
  const when = tt.readOnly() ? ` at ${/^\d+$/.test(tt.at()) ? 'seq ' : ''}${tt.at()}` : '';
  let data;
  try {
    ({ data } = await api('metrics', { query: { prefix, points: POINTS, at: tt.at() } }));
  } catch (err) {
    $('metrics-count').textContent = '';
    box.replaceChildren(el('p', { class: 'error-text' }, `${err.code}: ${err.message}`));
    return;
  }
  const ms = data.metrics || [];
  const total = data.total ?? ms.length;
  $('metrics-count').textContent = ms.length
    ? `${total} metric${total === 1 ? '' : 's'}${ms.length < total ? `, the first ${ms.length} shown` : ''}${when}`
    : '';
  if (!ms.length) {
    box.replaceChildren(el('p', { class: 'muted', id: 'metrics-empty' }, prefix
      ? `No metric name starts with "${prefix}"${when}.`
      : `No metric recorded${when}. Agents record them with cos_metric_record.`));
    return;
  }
  box.replaceChildren(...ms.map(metric));
}

function value(v, unit) {
  if (typeof v !== 'number') return String(v ?? '—');
  const s = Number.isInteger(v) ? String(v) : v.toPrecision(6).replace(/\.?0+$/, '');
  return unit ? `${s} ${unit}` : s;
}

function metric(m) {
  const latest = m.latest || {};
  const recent = m.recent || [];
  return el('section', { class: 'field metric', 'data-metric': m.name },
    el('h3', {}, m.name),
    el('p', {},
      el('span', { class: 'latest', 'data-value': String(latest.value) }, value(latest.value, latest.unit)),
      el('span', { class: 'muted' }, ` latest · ${m.count} point${m.count === 1 ? '' : 's'}`)),
    el('table', {},
      el('caption', { class: 'muted' }, `Last ${recent.length}, newest first`),
      el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'seq'), el('th', { scope: 'col' }, 'time'),
        el('th', { scope: 'col' }, 'value'), el('th', { scope: 'col' }, 'tags'))),
      el('tbody', {}, ...recent.map((p) => el('tr', { 'data-seq': String(p.seq) },
        el('td', {}, el('a', { href: `#/metrics?at=${p.seq}`, title: `View the page as of seq ${p.seq}` }, `#${p.seq}`)),
        el('td', {}, fmtTime(p.time)),
        el('td', {}, value(p.value, p.unit)),
        el('td', {}, Object.entries(p.tags || {}).map(([k, v]) => `${k}=${v}`).join(', ')))))));
}
