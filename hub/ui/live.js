// The live event stream, one per browser for all the Hub tabs of an
// origin. A browser keeps at most 6 HTTP/1.1 connections per host, and an
// EventSource holds one for good: with a stream per tab the 7th tab would
// never load. So the tabs elect a leader with the Web Locks API: the tab
// holding the lock "cos-hub-events" owns the one EventSource on
// /api/events and rebroadcasts every event and every open/close of the
// stream on the BroadcastChannel "cos-hub-events"; the other tabs follow.
// When the leader tab closes (or crashes, or navigates away) the browser
// releases its lock, the next waiting tab takes it and opens the stream
// from the last seq it has seen (?since=), so no event is skipped; every
// tab drops an event whose seq it has already delivered, so none is shown
// twice. A tab that joins asks the leader for what it missed (the leader
// replays, from the last REPLAY events it keeps, those after the joiner's
// seq) and holds the live events back until that answer came, so its
// events arrive in seq order.
//
// Where navigator.locks or BroadcastChannel is missing (navigator.locks
// exists in secure contexts only: https or a loopback address), every tab
// opens its own EventSource, as a single page would.
//
// Either way the browser resends Last-Event-ID itself when the connection
// drops; when the server closes the stream for good (a restart, a 401,
// too many streams) the owner opens a new one from the last seq seen.
// Every event is dispatched to subscribers as the object the server sent:
// {seq, id, time, stream, revision, type, actor, request_id, data |
// data_bytes}. body[data-live="1"] is set once this tab has the stream's
// open state; body[data-live-role] says leader, follower or solo.

import { api, apiURL, askToken } from './api.js';

// SHARED_NAME is the name of the lock and of the channel.
const SHARED_NAME = 'cos-hub-events';
// REPLAY is how many of the last events each tab keeps to replay to a
// tab that joins (the page's backlog is 100).
const REPLAY = 500;
// HELLO_RETRY_MS is how long a follower waits for the leader's answer
// before asking again (the leader may have been changing hands).
const HELLO_RETRY_MS = 2000;

const subscribers = new Set();
const recent = []; // the last REPLAY events delivered, in seq order
const tabId = Math.random().toString(36).slice(2) + Date.now().toString(36);
let lastSeq = 0;
let started = false;
let role = '';
let channel = null;
let source = null;
let streamOpen = false;
let retryMs = 1000;
let timer = null;
// A follower holds live events back (queued) until the leader answered
// its hello (welcomed), so events reach subscribers in seq order.
let welcomed = false;
let queued = [];
let helloTimer = null;

export function subscribe(fn) {
  subscribers.add(fn);
  return () => subscribers.delete(fn);
}

export function lastSeen() {
  return lastSeq;
}

let liveOn = false;

function setLive(on) {
  liveOn = on;
  document.body.dataset.live = on ? '1' : '0';
  refreshLiveLabel();
}

// refreshLiveLabel names the stream's state in #live-status: while time
// travel is on (body.readonly) the stream stays open but the views do not
// follow it, and the label says so.
export function refreshLiveLabel() {
  const s = document.getElementById('live-status');
  const paused = document.body.classList.contains('readonly');
  s.textContent = liveOn ? (paused ? 'live · paused' : 'live') : 'reconnecting…';
  s.title = paused ? 'Time travel is on: the views show the past; Now follows live updates again' : 'Live updates';
  s.classList.toggle('on', liveOn && !paused);
}

function setRole(r) {
  role = r;
  document.body.dataset.liveRole = r;
}

// deliver hands ev to the subscribers unless its seq was delivered already.
function deliver(ev) {
  if (!ev || typeof ev.seq !== 'number' || ev.seq <= lastSeq) return false;
  lastSeq = ev.seq;
  recent.push(ev);
  if (recent.length > REPLAY) recent.splice(0, recent.length - REPLAY);
  for (const fn of subscribers) {
    try {
      fn(ev);
    } catch (err) {
      console.warn('live subscriber failed', err);
    }
  }
  return true;
}

function shareable() {
  return typeof BroadcastChannel === 'function' && !!navigator.locks && typeof navigator.locks.request === 'function';
}

// startLive starts the stream from `since` (the log seq the page has
// already seen; events after it are delivered).
export function startLive(since) {
  if (typeof since === 'number' && since > lastSeq) lastSeq = since;
  if (started) {
    if (role === 'solo' || role === 'leader') connect();
    return;
  }
  started = true;
  window.addEventListener('pageshow', (e) => {
    // Back from the back/forward cache: the stream or the channel missed
    // what happened meanwhile.
    if (!e.persisted) return;
    if (role === 'follower') hello();
    else connect();
  });
  if (!shareable()) {
    setRole('solo');
    connect();
    return;
  }
  channel = new BroadcastChannel(SHARED_NAME);
  channel.addEventListener('message', (m) => onMessage(m.data));
  window.addEventListener('cos:login', () => post({ kind: 'login' }));
  setRole('follower');
  hello();
  navigator.locks
    .request(SHARED_NAME, () => {
      lead();
      return new Promise(() => {}); // held until the tab goes away
    })
    .catch((err) => {
      // The lock cannot be had here (a sandboxed page, say): go solo.
      console.warn('live: no shared stream, this tab opens its own', err);
      if (role === 'leader') return;
      channel.close();
      channel = null;
      setRole('solo');
      connect();
    });
}

function post(msg) {
  if (!channel) return;
  try {
    channel.postMessage(msg);
  } catch (err) {
    console.warn('live: broadcast failed', err);
  }
}

// hello asks the leader for the events after lastSeq and the stream's
// state; live events wait until the answer.
function hello() {
  welcomed = false;
  clearTimeout(helloTimer);
  post({ kind: 'hello', from: tabId, since: lastSeq });
  helloTimer = setTimeout(() => {
    if (role === 'follower' && !welcomed) hello();
  }, HELLO_RETRY_MS);
}

function welcome(events) {
  welcomed = true;
  clearTimeout(helloTimer);
  const all = events.concat(queued);
  queued = [];
  all.sort((a, b) => a.seq - b.seq);
  for (const ev of all) deliver(ev);
}

// lead makes this tab the owner of the stream: it announces itself (the
// followers ask it for what they missed) and opens the stream from the
// last seq it has seen.
function lead() {
  setRole('leader');
  welcome([]);
  setLive(false);
  post({ kind: 'leader', from: tabId });
  connect();
}

function onMessage(msg) {
  if (!msg || typeof msg !== 'object') return;
  if (role === 'leader') {
    switch (msg.kind) {
      case 'hello':
        post({
          kind: 'welcome',
          to: msg.from,
          open: streamOpen,
          events: recent.filter((ev) => ev.seq > (Number(msg.since) || 0)),
        });
        break;
      case 'login':
        // Another tab logged in: a stream refused for want of it can
        // open now.
        if (!streamOpen) connect();
        break;
    }
    return;
  }
  if (role !== 'follower') return;
  switch (msg.kind) {
    case 'event':
      if (welcomed) deliver(msg.ev);
      else queued.push(msg.ev);
      break;
    case 'state':
      setLive(!!msg.open);
      if (msg.login && document.visibilityState === 'visible') askToken();
      break;
    case 'welcome':
      if (msg.to !== tabId) break;
      welcome(Array.isArray(msg.events) ? msg.events : []);
      setLive(!!msg.open);
      break;
    case 'leader':
      // A new leader: ask it for what the old one did not pass on.
      setLive(false);
      hello();
      break;
  }
}

// streamState sets this tab's live state and, for a leader, the
// followers'.
function streamState(open, login) {
  streamOpen = open;
  setLive(open);
  if (role === 'leader') post({ kind: 'state', open, login: !!login });
}

function connect() {
  clearTimeout(timer);
  if (source) source.close();
  const url = apiURL('events', { since: lastSeq });
  const es = new EventSource(url);
  source = es;
  es.addEventListener('open', () => {
    retryMs = 1000;
    streamState(true);
  });
  es.addEventListener('cos', (msg) => {
    let ev;
    try {
      ev = JSON.parse(msg.data);
    } catch {
      return;
    }
    if (deliver(ev) && role === 'leader') post({ kind: 'event', ev });
  });
  es.addEventListener('error', () => {
    if (source !== es) return;
    streamState(false);
    if (es.readyState !== EventSource.CLOSED) return; // the browser retries with Last-Event-ID
    es.close();
    source = null;
    timer = setTimeout(async () => {
      // A closed stream may mean the login expired: ask before retrying.
      // A leader in a hidden tab leaves the asking to the visible ones.
      try {
        const { data } = await api('session');
        if (data.auth_required && !data.authenticated) {
          if (role === 'leader') post({ kind: 'state', open: false, login: true });
          if (role !== 'leader' || document.visibilityState === 'visible') await askToken();
        }
      } catch {
        /* server down: retry below */
      }
      connect();
    }, retryMs);
    retryMs = Math.min(retryMs * 2, 15000);
  });
}

// logHead is the log's last seq (cos_health), where the stream starts
// when the page has seen nothing yet.
export async function logHead() {
  const { data } = await api('health');
  return (data.log && data.log.head_seq) || 0;
}
