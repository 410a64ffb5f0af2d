// The Hub page: a router on location.hash over the view modules.
// Routes: #/board[?task=ID&q=…&assignee=…&label=…&status=todo,review],
// #/graph[?uid=…|?path=…|?q=…|?level=…&under=…], #/feed,
// #/evidence[/<session>], #/metrics, #/health; any of them takes
// ?at=<seq or time> (time travel, timetravel.js). body[data-ready="1"] is set once a
// view has rendered; body[data-live="1"] while the event stream is open.

import { api, askToken, logout, showError } from './api.js';
import { initTimeTravel, onChange as onAtChange, fromHash } from './timetravel.js';
import { startLive, logHead, refreshLiveLabel } from './live.js';
import { initBoard, showBoard } from './board.js';
import { initTask, showTask } from './task.js';
import { initGraph, showGraph } from './graph.js';
import { initFeed, showFeed } from './feed.js';
import { initEvidence, showEvidence } from './evidence.js';
import { initHealth, showHealth } from './health.js';
import { initKeys } from './keys.js';
import { initMetrics, showMetrics } from './metrics.js';

const VIEWS = ['board', 'graph', 'feed', 'evidence', 'metrics', 'health'];
// BACKLOG is how many past events the feed shows when the page opens.
const BACKLOG = 100;

function parseHash() {
  const h = location.hash.replace(/^#\/?/, '');
  const [pathPart, query = ''] = h.split('?');
  const parts = pathPart.split('/').filter(Boolean).map(decodeURIComponent);
  const view = VIEWS.includes(parts[0]) ? parts[0] : 'board';
  return { view, rest: parts.slice(1), params: new URLSearchParams(query) };
}

let routeSeq = 0;

async function route() {
  const mine = ++routeSeq;
  const { view, rest, params } = parseHash();
  // An error belongs to the render that raised it: a new one starts clean.
  showError(null);
  const atErr = fromHash(params);
  document.body.dataset.ready = '0';
  document.body.dataset.view = view;
  for (const v of VIEWS) {
    document.getElementById(`view-${v}`).hidden = v !== view;
    const link = document.querySelector(`a[data-view="${v}"]`);
    if (v === view) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  // The view's name (its nav link's text) heads the page and its title.
  const name = document.querySelector(`a[data-view="${view}"]`).textContent.trim();
  document.getElementById('view-title').textContent = name;
  document.title = `${name} — cos Hub`;
  // A task's page belongs to the board: another view closes it.
  if (view !== 'board') await showTask('');
  try {
    switch (view) {
      case 'board': await showBoard(params); await showTask(params.get('task') || ''); break;
      case 'graph': await showGraph(params); break;
      case 'feed': await showFeed(); break;
      case 'evidence': await showEvidence(rest[0] || ''); break;
      case 'metrics': await showMetrics(); break;
      case 'health': await showHealth(); break;
    }
  } catch (err) {
    showError(err);
  }
  if (atErr) showError(atErr);
  if (mine === routeSeq) document.body.dataset.ready = '1';
}

async function main() {
  document.body.dataset.live = '0';
  document.body.dataset.ready = '0';
  initTimeTravel(showError);
  initBoard();
  initTask();
  initGraph();
  initFeed();
  initEvidence();
  initHealth();
  initKeys();
  initMetrics();
  document.addEventListener('cos:at-applied', refreshLiveLabel);
  onAtChange(() => route());
  window.addEventListener('hashchange', route);
  window.addEventListener('cos:login', () => route());
  if (!location.hash) history.replaceState(null, '', '#/board');
  // Ask for the token before the first read rather than after its 401.
  try {
    const { data } = await api('session');
    initLogout(data.auth_required);
    if (data.auth_required && !data.authenticated) await askToken();
  } catch (err) {
    showError(err);
  }
  await route();
  let head = 0;
  try {
    head = await logHead();
  } catch {
    /* the stream starts at the server's head */
  }
  startLive(Math.max(0, head - BACKLOG));
}

// initLogout shows the header's Log out button when the server asks for
// a token.
function initLogout(authRequired) {
  const btn = document.getElementById('logout');
  btn.hidden = !authRequired;
  btn.addEventListener('click', () => logout());
}

main();
