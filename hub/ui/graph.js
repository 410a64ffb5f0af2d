// The graph: with nothing chosen, the map (cos_graph_overview: packages,
// then a package's files, with a table beside as its text alternative);
// search (resolve) → candidates (an exact name is drawn at once) → a
// node's neighbourhood (export with root and hops=1) drawn with Cytoscape;
// a click or Enter on a node expands its neighbourhood into the drawing.
// At most maxNodes nodes and the root are drawn at once (MAX_NODES,
// raised by "Draw more" up to DRAW_CAP); the status line says how many were left out.
// Cytoscape itself is loaded when the graph view first opens.

import { api, ApiError, el, showError } from './api.js';
import * as tt from './timetravel.js';
import { loadCytoscape, mapHash, renderMap } from './graphmap.js';

const MAX_NODES = 300;
const DRAW_CAP = 1999; // neighbours: export's 2,000 nodes with the root
let maxNodes = MAX_NODES;
// cut is the last neighbourhood drawn: root, nodes drawn and nodes within
// its hop, for the status line and "Draw more".
let cut = null;
let mapShown = false;
const KIND_COLOURS = {
  file: '#4c78a8', function: '#59a14f', method: '#8cd17d', class: '#f28e2b', module: '#b07aa1', external: '#bab0ac',
  doc_file: '#76b7b2', heading: '#9d7660', folder: '#e15759', config: '#edc948', dependency: '#ff9da7', mcp_server: '#d37295',
};
const IMPACT_COLOURS = ['#b2182b', '#d6604d', '#f4a582', '#fddbc7', '#fbe9e0'];

let cy = null;
let selected = ''; // uid of the node in the detail panel
let rootUid = '';
let shownKey = '';
const hiddenTypes = new Set();
let detailSeq = 0;
// byCluster colours nodes by call-graph community (export's clusters:
// true) instead of by kind; clusterInfo holds each cluster seen, by id.
let byCluster = false;
const clusterInfo = new Map();
const CLUSTER_COLOURS = ['#1b9e77', '#d95f02', '#7570b3', '#e7298a', '#66a61e', '#e6ab02', '#a6761d',
  '#1f78b4', '#b2df8a', '#fb9a99', '#cab2d6', '#6a3d9a'];

const $ = (id) => document.getElementById(id);

export function initGraph() {
  $('graph-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    search($('graph-q').value.trim());
  });
  $('impact-btn').addEventListener('click', () => impact());
  $('colour-clusters').addEventListener('change', (ev) => {
    byCluster = ev.target.checked;
    if (mapShown) {
      shownKey = '';
      showGraph(new URLSearchParams(location.hash.split('?')[1] || ''));
    } else if (rootUid) draw(rootUid);
  });
  $('graph-more').addEventListener('click', () => {
    if (!cut) return;
    maxNodes = Math.min(DRAW_CAP, maxNodes + MAX_NODES);
    draw(cut.root, true);
  });
  $('candidates').addEventListener('click', (ev) => {
    const li = ev.target.closest('li[data-uid]');
    if (li) pick(li.dataset.uid);
  });
  $('edge-filters').addEventListener('change', (ev) => {
    const box = ev.target.closest('input[data-edge-type]');
    if (!box) return;
    if (box.checked) hiddenTypes.delete(box.dataset.edgeType);
    else hiddenTypes.add(box.dataset.edgeType);
    applyEdgeFilter();
  });
  $('node-detail').addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-expand]');
    if (b) expand(b.dataset.expand, true);
  });
  tt.onChange(() => {
    shownKey = '';
  });
}

async function ensureCy() {
  if (cy) return cy;
  await loadCytoscape();
  if (typeof window.cytoscape !== 'function') throw new Error('the graph library did not load');
  cy = window.cytoscape({
    container: $('graph-canvas'),
    minZoom: 0.1,
    maxZoom: 4,
    style: [
      { selector: 'node', style: { 'background-color': 'data(colour)', label: 'data(label)', 'font-size': 9, color: '#222', 'text-valign': 'bottom', 'text-margin-y': 2, width: 14, height: 14, 'text-max-width': 120, 'text-wrap': 'ellipsis' } },
      { selector: 'node.root', style: { width: 24, height: 24, 'border-width': 3, 'border-color': '#222' } },
      { selector: 'node:selected', style: { 'border-width': 3, 'border-color': '#0b5cad' } },
      { selector: 'node.stub', style: { shape: 'round-rectangle', opacity: 0.7 } },
      { selector: 'edge', style: { width: 1, 'line-color': '#aaa', 'target-arrow-color': '#aaa', 'target-arrow-shape': 'triangle', 'curve-style': 'bezier', 'arrow-scale': 0.6 } },
      { selector: 'edge.hidden-type', style: { display: 'none' } },
      { selector: 'node.faded', style: { opacity: 0.25 } },
      ...IMPACT_COLOURS.map((c, i) => ({ selector: `node.impact-${i + 1}`, style: { 'background-color': c, 'border-width': 2, 'border-color': '#67001f' } })),
      { selector: 'node.impact-0', style: { 'background-color': '#67001f' } },
      { selector: 'node.group', style: { shape: 'round-rectangle', width: 'data(size)', height: 'data(size)', 'font-size': 11, 'text-max-width': 160 } },
      { selector: 'edge.group', style: { width: 'data(width)', 'line-color': '#8a94a6', 'target-arrow-color': '#8a94a6', opacity: 0.8 } },
    ],
  });
  cy.on('tap', 'node', (ev) => {
    const drill = ev.target.data('drill');
    if (drill) location.hash = drill;
    else expand(ev.target.id(), true);
  });
  window.cosGraph = cy;
  return cy;
}

// showGraph renders the graph view: ?uid= draws that node's neighbourhood,
// ?path= resolves a file path first, ?q= runs a search; with none of them
// the map (?level=package|file, ?under=folder).
export async function showGraph(params) {
  try {
    await ensureCy();
  } catch (err) {
    showError(err);
    return;
  }
  cy.resize();
  const uid = params.get('uid') || '';
  const path = params.get('path') || '';
  const q = params.get('q') || '';
  const level = params.get('level') === 'file' ? 'file' : 'package';
  const under = params.get('under') || '';
  const key = JSON.stringify([uid, path, q, level, under, byCluster, tt.at()]);
  if (key === shownKey) return;
  shownKey = key;
  showMapPanel(!uid && !path && !q);
  if (uid) {
    await draw(uid);
  } else if (path) {
    $('graph-q').value = path;
    const first = await search(path, true);
    if (first) await draw(first);
  } else if (q) {
    $('graph-q').value = q;
    await search(q);
  } else {
    await drawMap(level, under);
  }
}

// showMapPanel shows the map's table (on) or the node detail panel beside
// the canvas.
function showMapPanel(on) {
  mapShown = on;
  $('graph-status').textContent = '';
  $('graph-map').hidden = !on;
  $('node-detail').hidden = on;
  $('edge-filters').hidden = on;
  if (on) {
    cut = null;
    $('graph-more').hidden = true;
  }
}

async function drawMap(level, under) {
  try {
    const { data } = await api('graph/overview', { query: { level, under: under || undefined, limit: MAX_NODES, clusters: byCluster || undefined, at: tt.at() } });
    tt.noteSeq(data.meta && data.meta.log_seq);
    rootUid = '';
    selected = '';
    $('impact-btn').disabled = true;
    $('candidates').replaceChildren();
    renderMap(cy, data, { byCluster, colours: CLUSTER_COLOURS, panel: $('graph-map'), status: $('graph-status'), canvas: $('graph-canvas') });
    showError(null);
  } catch (err) {
    showError(err);
  }
}

// search lists the candidates of q; with takeFirst it returns the best one
// instead of waiting for a pick.
async function search(q, takeFirst = false) {
  const list = $('candidates');
  if (!q) {
    showError(Object.assign(new Error('Type a name, a path or a uid to search for.'), { code: 'E_ARGUMENT' }));
    return '';
  }
  list.replaceChildren(el('li', { class: 'muted', 'aria-busy': 'true' }, `Searching for “${q}”…`));
  try {
    const { data } = await api('graph/resolve', { query: { q, limit: 20, at: tt.at() } });
    tt.noteSeq(data.meta && data.meta.log_seq);
    const results = data.results || [];
    if (results.length === 0) list.replaceChildren(el('li', { class: 'muted' }, `Nothing found for “${q}”.`));
    else list.replaceChildren(...results.map((r) =>
      el('li', { 'data-uid': r.uid }, el('button', { type: 'button', class: 'candidate', title: r.uid },
        el('span', { class: `kind kind-${r.kind}` }, r.kind), ' ', el('strong', {}, r.label || r.uid), ' ',
        el('span', { class: 'muted' }, r.path || ''), r.match ? el('span', { class: 'match' }, r.match) : null))));
    showError(null);
    if (takeFirst) return results.length ? results[0].uid : '';
    const exact = results.filter((r) => r.uid === q || r.label === q || r.uid.endsWith(`::${q}`) || (r.kind === 'file' && r.path === q));
    if (results.length === 1) pick(results[0].uid);
    else if (exact.length === 1) pick(exact[0].uid);
    else if (results.length) list.querySelector('li button').focus();
    return '';
  } catch (err) {
    list.replaceChildren();
    showError(err);
    return '';
  }
}

function pick(uid) {
  const want = mapHash({ uid });
  if (location.hash !== want) location.hash = want;
  else draw(uid);
}

function colour(kind) {
  return KIND_COLOURS[kind] || '#999';
}

function nodeElement(n) {
  const inCluster = byCluster && Number.isInteger(n.cluster);
  const fill = inCluster ? CLUSTER_COLOURS[n.cluster % CLUSTER_COLOURS.length] : colour(n.kind);
  return { group: 'nodes', data: { id: n.uid, label: n.label || n.uid, kind: n.kind, path: n.path || '', line: n.line || 0, end_line: n.end_line || 0, colour: fill, cluster: inCluster ? n.cluster : -1 }, classes: n.metadata && n.metadata.stub ? 'stub' : '' };
}

function edgeId(e) {
  return `${e.type}|${e.source}|${e.target}`;
}

// merge adds nodes and the edges among drawn nodes; it stops at maxNodes + 1
// and reports how many nodes it had to leave out.
function merge(nodes, edges, near) {
  let left = 0;
  const at = near && cy.getElementById(near).nonempty() ? cy.getElementById(near).position() : null;
  cy.batch(() => {
    for (const n of nodes) {
      if (cy.getElementById(n.uid).nonempty()) continue;
      if (cy.nodes().length > maxNodes) {
        left++;
        continue;
      }
      const ele = nodeElement(n);
      if (at) ele.position = { x: at.x + (Math.random() - 0.5) * 80, y: at.y + (Math.random() - 0.5) * 80 };
      cy.add(ele);
    }
    for (const e of edges) {
      const id = edgeId(e);
      if (cy.getElementById(id).nonempty()) continue;
      if (cy.getElementById(e.source).empty() || cy.getElementById(e.target).empty()) continue;
      cy.add({ group: 'edges', data: { id, source: e.source, target: e.target, type: e.type } });
    }
  });
  updateEdgeFilters();
  return left;
}

async function fetchNeighbourhood(uid) {
  const { data } = await api('graph/export', { query: { root: uid, hops: 1, max_nodes: maxNodes + 1, at: tt.at(), clusters: byCluster || undefined } });
  tt.noteSeq(data.meta && data.meta.log_seq);
  for (const c of data.clusters || []) clusterInfo.set(c.id, c);
  return data;
}

// draw replaces the drawing with uid's neighbourhood (more: the same
// root again, maxNodes raised; any other root starts at MAX_NODES).
async function draw(uid, more = false) {
  if (!more) maxNodes = MAX_NODES;
  try {
    const data = await fetchNeighbourhood(uid);
    rootUid = (data.root && data.root.uid) || uid;
    cy.elements().remove();
    const left = merge(data.nodes || [], data.edges || []);
    cy.getElementById(rootUid).addClass('root');
    layout(rootUid, true);
    canvasLabel(`Neighbourhood of ${(data.root && data.root.label) || rootUid}`);
    showCut(rootUid, (data.nodes || []).length - left, (data.counts && data.counts.reachable) || 0);
    select(rootUid, left);
    showError(null);
  } catch (err) {
    showError(err);
  }
}

// expand merges uid's neighbourhood into the drawing and selects it.
async function expand(uid, andSelect) {
  if (!cy) return;
  try {
    const data = await fetchNeighbourhood(uid);
    const before = cy.nodes().length;
    const left = merge(data.nodes || [], data.edges || [], uid);
    if (cy.nodes().length !== before) layout(uid, false);
    if (andSelect) select(uid, left);
  } catch (err) {
    showError(err);
  }
}

// showCut says how many of root's neighbours are drawn, and offers the
// rest ("Draw more") while some are left out and the cap allows.
function showCut(root, drawn, reachable) {
  const neighbours = Math.max(0, reachable - 1);
  const shown = Math.max(0, drawn - 1);
  cut = { root, drawn: shown, total: neighbours };
  const status = $('graph-status');
  const more = $('graph-more');
  if (!reachable) {
    status.textContent = `${shown} neighbours drawn.`;
    more.hidden = true;
    return;
  }
  status.textContent = shown < neighbours
    ? `${shown} of ${neighbours} neighbours drawn${maxNodes >= DRAW_CAP ? ` (at most ${DRAW_CAP} at once)` : ''}.`
    : `All ${neighbours} neighbours drawn.`;
  more.hidden = shown >= neighbours || maxNodes >= DRAW_CAP;
  more.textContent = `Draw ${Math.min(MAX_NODES, neighbours - shown)} more`;
}

function canvasLabel(text) {
  const c = $('graph-canvas');
  c.setAttribute('role', 'img');
  c.setAttribute('aria-label', text);
}

function layout(center, fresh) {
  const n = cy.nodes().length;
  const opts = n > 120
    ? { name: 'concentric', concentric: (node) => (node.id() === center ? 2 : node.hasClass('root') ? 1.5 : 1), levelWidth: () => 1, minNodeSpacing: 6, animate: false }
    : { name: 'cose', animate: false, randomize: fresh, nodeRepulsion: () => 6000, idealEdgeLength: () => 60, numIter: 600 };
  cy.layout(opts).run();
  cy.fit(undefined, 20);
}

function updateEdgeFilters() {
  const types = [...new Set(cy.edges().map((e) => e.data('type')))].sort();
  const box = $('edge-filters');
  const have = new Set([...box.querySelectorAll('input[data-edge-type]')].map((i) => i.dataset.edgeType));
  for (const t of types) {
    if (have.has(t)) continue;
    const id = `edge-type-${t}`;
    box.append(el('label', { for: id, class: 'edge-type' },
      el('input', { type: 'checkbox', id, 'data-edge-type': t, checked: !hiddenTypes.has(t) }), ` ${t.replace(/_/g, ' ')}`));
  }
  applyEdgeFilter();
}

function applyEdgeFilter() {
  if (!cy) return;
  cy.batch(() => {
    cy.edges().forEach((e) => e.toggleClass('hidden-type', hiddenTypes.has(e.data('type'))));
  });
}

// select shows uid in the detail panel: kind, place, degree, its
// neighbours as buttons (the keyboard's way to expand) and source lines.
async function select(uid, left = 0) {
  selected = uid;
  $('impact-btn').disabled = false;
  cy.nodes().unselect();
  cy.getElementById(uid).select();
  const mine = ++detailSeq;
  const panel = $('node-detail');
  let ctx;
  try {
    ({ data: ctx } = await api('graph/context', { query: { uid, depth: 1, at: tt.at() } }));
  } catch (err) {
    if (mine === detailSeq) panel.replaceChildren(el('p', { class: 'error-text' }, `${err.code}: ${err.message}`));
    return;
  }
  if (mine !== detailSeq) return;
  const n = ctx.node || {};
  const neighbours = (ctx.neighbours || []).slice(0, 60);
  const counts = Object.entries(ctx.edges_by_type || {}).map(([t, list]) => `${t} ${list.length}`).join(', ');
  panel.replaceChildren(...[
    el('h2', {}, n.label || uid),
    el('p', { class: 'uid' }, el('code', {}, uid)),
    el('p', {}, el('span', { class: `kind kind-${n.kind}` }, n.kind || ''), ' ', n.path ? `${n.path}${n.line ? `:${n.line}${n.end_line ? `–${n.end_line}` : ''}` : ''}` : ''),
    ctx.degree ? el('p', { class: 'muted' }, `in ${ctx.degree.in}, out ${ctx.degree.out}${counts ? ` — ${counts}` : ''}`) : null,
    clusterLine(uid),
    left ? el('p', { class: 'note' }, `${left} more neighbours not drawn (at most ${maxNodes} nodes at once).`) : null,
    el('div', { id: 'impact-summary' }),
    el('h3', {}, 'Source'),
    el('pre', { id: 'node-source', class: 'source', tabindex: '0' }, n.path ? 'loading…' : '(no source: this node has no file)'),
    el('h3', {}, `Neighbours (${(ctx.neighbours || []).length})`),
    el('ul', { class: 'neighbours' }, ...neighbours.map((x) =>
      el('li', {}, el('button', { type: 'button', 'data-expand': x.uid, title: x.uid }, `${x.label || x.uid}`), ' ', el('span', { class: 'muted' }, x.kind || '')))),
  ].filter(Boolean));
  if (n.path) loadSource(uid, mine);
}

// clusterLine names the call-graph cluster of the drawn node uid while
// nodes are coloured by cluster; null otherwise.
function clusterLine(uid) {
  const node = cy && cy.getElementById(uid);
  const c = node && node.nonempty() ? clusterInfo.get(node.data('cluster')) : undefined;
  if (!byCluster || !c) return null;
  return el('p', { class: 'cluster' }, `Cluster: ${c.name} — ${c.size} functions`);
}

async function loadSource(uid, mine) {
  let text;
  try {
    const { data } = await api('graph/source', { query: { uid, at: tt.at() } });
    text = sourceText(data);
  } catch (err) {
    text = err instanceof ApiError && err.status === 404 && err.code === 'E_NOT_FOUND' && /route|path/i.test(err.message)
      ? '(source lines are not served by this server)'
      : `${err.code}: ${err.message}`;
  }
  if (mine !== detailSeq) return;
  const pre = $('node-source');
  if (pre) pre.textContent = text;
}

// sourceText accepts the source answer as lines [{line, text}] or
// [string] with start_line, or as one text.
function sourceText(d) {
  const lines = d.lines || d.source_lines;
  if (Array.isArray(lines)) {
    const start = d.start_line || d.line || 1;
    const width = String(start + lines.length).length;
    return lines.map((l, i) => (typeof l === 'string'
      ? `${String(start + i).padStart(width)}  ${l}`
      : `${String(l.line ?? start + i).padStart(width)}  ${l.text ?? ''}`)).join('\n') + (d.truncated ? '\n…' : '');
  }
  if (typeof d.source === 'string') return d.source;
  if (typeof d.text === 'string') return d.text;
  return JSON.stringify(d, null, 2);
}

// impact colours what depends on the selected node by depth (dark = near)
// and adds the dependants that are not drawn yet, up to MAX_NODES.
async function impact() {
  if (!selected || !cy) return;
  const uid = selected;
  try {
    const { data } = await api('graph/impact', { query: { uid, depth: 3, limit: 200, at: tt.at() } });
    cy.nodes().removeClass('impact-0 impact-1 impact-2 impact-3 impact-4 impact-5 faded');
    const nodes = data.nodes || [];
    const edges = nodes.filter((x) => x.through).map((x) => ({ source: x.uid, target: x.through, type: x.via || 'calls' }));
    const before = cy.nodes().length;
    const left = merge(nodes, edges, uid);
    if (cy.nodes().length !== before) layout(uid, false);
    cy.batch(() => {
      cy.nodes().addClass('faded');
      cy.getElementById(uid).removeClass('faded').addClass('impact-0');
      for (const x of nodes) cy.getElementById(x.uid).removeClass('faded').addClass(`impact-${Math.min(x.depth, 5)}`);
    });
    const byDepth = Object.entries(data.counts_by_depth || {}).map(([d, c]) => `depth ${d}: ${c}`).join(', ');
    const sum = $('impact-summary');
    if (sum) {
      sum.replaceChildren(el('p', { class: 'impact' }, `Impact: ${data.count} dependants${byDepth ? ` (${byDepth})` : ''}` +
        `${data.next_cursor ? ', first page shown' : ''}${left ? `, ${left} not drawn` : ''}.`));
    }
    showError(null);
  } catch (err) {
    showError(err);
  }
}
