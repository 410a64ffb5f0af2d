// The graph's map: cos_graph_overview's groups (packages — folders — or
// the files under one) drawn as boxes sized by the nodes they hold, joined
// by lines as wide as the edges between them, with a legend and a table
// beside as the drawing's text alternative. A package drills into its
// files, a file into its neighbourhood. Also the lazy load of Cytoscape:
// only the graph view needs it.

import { el } from './api.js';

const LIBRARY = 'vendor/cytoscape/cytoscape.min.js';
const PALETTE = ['#4c78a8', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#6b8e23',
  '#d37295', '#1f78b4'];
const OTHER = '#bab0ac';

let loading = null;

// loadCytoscape adds the graph library's script to the page once and
// resolves when it has run (at once when it already has).
export function loadCytoscape() {
  if (typeof window.cytoscape === 'function') return Promise.resolve();
  if (!loading) {
    loading = new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = LIBRARY;
      s.addEventListener('load', () => resolve());
      s.addEventListener('error', () => {
        loading = null;
        s.remove();
        reject(new Error('the graph library could not be loaded'));
      });
      document.head.append(s);
    });
  }
  return loading;
}

// mapHash is the graph view's address for {uid} (a neighbourhood) or
// {level, under} (the map).
export function mapHash({ uid = '', level = '', under = '' } = {}) {
  if (uid) return `#/graph?uid=${encodeURIComponent(uid)}`;
  const q = [];
  if (level && level !== 'package') q.push(`level=${encodeURIComponent(level)}`);
  if (under) q.push(`under=${encodeURIComponent(under)}`);
  return `#/graph${q.length ? `?${q.join('&')}` : ''}`;
}

// drillOf is where a group leads: a package to its files, a file to its
// neighbourhood ('' when the file has no node).
function drillOf(level, g) {
  if (level === 'package') return mapHash({ level: 'file', under: g.id === '.' ? '' : g.id });
  return g.uid ? mapHash({ uid: g.uid }) : '';
}

// nameOf is a group's name as the map shows it: relative to under.
function nameOf(id, under) {
  if (id === '.') return '(top folder)';
  if (under && id.startsWith(`${under}/`)) return id.slice(under.length + 1);
  return id;
}

// keyOf is what colours a group when clusters are off: the first folder
// below under (packages) or the file's extension (files).
function keyOf(level, id, under) {
  const name = nameOf(id, under);
  if (level === 'file') {
    const dot = name.lastIndexOf('.');
    return dot > 0 && dot > name.lastIndexOf('/') ? name.slice(dot) : '(none)';
  }
  if (id === under || id === '.') return name;
  return name.split('/')[0];
}

// renderMap draws data (a cos_graph_overview answer) in cy and writes the
// legend and the table into o.panel and the counts into o.status.
// o: {byCluster, colours (cluster palette), panel, status, canvas}.
export function renderMap(cy, data, o) {
  const level = data.level === 'file' ? 'file' : 'package';
  const under = data.under || '';
  const groups = data.groups || [];
  const edges = data.edges || [];
  const counts = data.counts || {};
  const clusterName = new Map((data.clusters || []).map((c) => [c.id, c.name]));

  // Colours: by cluster, or by the most common keys (the rest grey).
  const byKey = new Map();
  for (const g of groups) {
    const k = keyOf(level, g.id, under);
    byKey.set(k, (byKey.get(k) || 0) + g.members + g.files);
  }
  const keyColour = new Map([...byKey.entries()].sort((a, b) => b[1] - a[1]).slice(0, PALETTE.length).map(([k], i) => [k, PALETTE[i]]));
  const colourOf = (g) => {
    if (o.byCluster) return Number.isInteger(g.cluster) ? o.colours[g.cluster % o.colours.length] : OTHER;
    return keyColour.get(keyOf(level, g.id, under)) || OTHER;
  };
  const out = new Map();
  const into = new Map();
  for (const e of edges) {
    out.set(e.source, (out.get(e.source) || 0) + e.weight);
    into.set(e.target, (into.get(e.target) || 0) + e.weight);
  }

  cy.batch(() => {
    cy.elements().remove();
    for (const g of groups) {
      cy.add({
        group: 'nodes',
        classes: 'group',
        data: { id: `group:${g.id}`, label: nameOf(g.id, under), colour: colourOf(g), size: Math.min(90, 18 + Math.round(Math.sqrt(g.members) * 5)), drill: drillOf(level, g), members: g.members },
      });
    }
    for (const e of edges) {
      cy.add({
        group: 'edges',
        classes: 'group',
        data: { id: `group-edge:${e.source}|${e.target}`, source: `group:${e.source}`, target: `group:${e.target}`, type: 'group', width: 1 + Math.min(8, Math.log2(e.weight)) },
      });
    }
  });
  const n = groups.length;
  cy.layout(n > 150
    ? { name: 'concentric', concentric: (x) => x.data('members'), levelWidth: () => 10, minNodeSpacing: 10, animate: false }
    : { name: 'cose', animate: false, randomize: true, nodeRepulsion: () => 40000, idealEdgeLength: () => 140, numIter: 800 }).run();
  cy.fit(undefined, 30);
  if (cy.zoom() > 1.2) { // a few boxes are not blown up to fill the canvas
    cy.zoom(1.2);
    cy.center();
  }

  const noun = level === 'file' ? (n === 1 ? 'file' : 'files') : (n === 1 ? 'package' : 'packages');
  const where = under ? ` under ${under}` : '';
  o.canvas.setAttribute('role', 'img');
  o.canvas.setAttribute('aria-label', `Map of ${n} ${noun}${where}; the table beside lists them`);
  o.status.textContent = (counts.groups > n ? `${n} of ${counts.groups} ${level === 'file' ? 'files' : 'packages'}${where} drawn` : `${n} ${noun}${where}`) +
    ` — ${counts.members || 0} nodes, ${edges.length} ${edges.length === 1 ? 'link' : 'links'} between them.`;

  const crumbs = [el('a', { href: mapHash() }, 'All packages')];
  if (under) {
    const parts = under.split('/');
    parts.forEach((_, i) => {
      const path = parts.slice(0, i + 1).join('/');
      crumbs.push(' / ', el('a', { href: mapHash({ under: path }) }, parts[i]));
    });
    crumbs.push(' / ', el('a', { href: mapHash({ level: 'file', under }) }, 'files'));
  }
  const legend = o.byCluster
    ? [...new Set(groups.filter((g) => Number.isInteger(g.cluster)).map((g) => g.cluster))].slice(0, 12)
      .map((c) => [o.colours[c % o.colours.length], `cluster ${clusterName.get(c) || c}`])
    : [...keyColour.entries()].map(([k, c]) => [c, k]);
  if (legend.length < (o.byCluster ? groups.length : byKey.size)) legend.push([OTHER, o.byCluster ? 'no cluster or another' : 'others']);

  o.panel.replaceChildren(
    el('h2', { id: 'graph-map-title' }, level === 'file' ? `Files${where}` : `Packages${where}`),
    el('nav', { class: 'crumbs', 'aria-label': 'Map levels' }, ...crumbs),
    el('h3', {}, 'Legend'),
    el('ul', { class: 'legend' },
      el('li', {}, 'Box size: nodes it holds'),
      el('li', {}, 'Line width: edges between two boxes'),
      ...legend.map(([c, label]) => {
        const sw = el('span', { class: 'swatch', 'aria-hidden': 'true' });
        sw.style.backgroundColor = c;
        return el('li', {}, sw, ` ${label}`);
      })),
    el('table', { class: 'map-table', 'aria-labelledby': 'graph-map-title' },
      el('thead', {}, el('tr', {},
        el('th', { scope: 'col' }, level === 'file' ? 'File' : 'Package'),
        el('th', { scope: 'col' }, 'Nodes'),
        el('th', { scope: 'col' }, 'Files'),
        el('th', { scope: 'col' }, 'Out'),
        el('th', { scope: 'col' }, 'In'))),
      el('tbody', {}, ...groups.map((g) => {
        const drill = drillOf(level, g);
        const name = nameOf(g.id, under);
        return el('tr', { 'data-group': g.id },
          el('th', { scope: 'row' }, drill ? el('a', { href: drill, 'data-drill': drill, title: g.id }, name) : name),
          el('td', {}, String(g.members)),
          el('td', {}, String(g.files)),
          el('td', {}, String(out.get(g.id) || 0)),
          el('td', {}, String(into.get(g.id) || 0)));
      }))),
  );
}
