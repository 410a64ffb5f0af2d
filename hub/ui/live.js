// The live event stream: one EventSource on /api/events for the page. The
// browser resends Last-Event-ID itself when the connection drops; when the
// server closes the stream for good (a restart, a 401, too many streams)
// we open a new one from the last seq seen (?since=), so no event is
// skipped or shown twice. Every event is dispatched to subscribers as the
// object the server sent: {seq, id, time, stream, revision, type, actor,
// request_id, data | data_bytes}.

import { api, apiURL, askToken } from './api.js';

const subscribers = new Set();
let source = null;
let lastSeq = 0;
let retryMs = 1000;
let timer = null;

export function subscribe(fn) {
  subscribers.add(fn);
  return () => subscribers.delete(fn);
}

export function lastSeen() {
  return lastSeq;
}

function setLive(on) {
  document.body.dataset.live = on ? '1' : '0';
  const s = document.getElementById('live-status');
  s.textContent = on ? 'live' : 'reconnecting…';
  s.classList.toggle('on', on);
}

// startLive opens the stream from `since` (the log seq the page has
// already seen; events after it are delivered).
export function startLive(since) {
  if (typeof since === 'number' && since > lastSeq) lastSeq = since;
  connect();
}

function connect() {
  clearTimeout(timer);
  if (source) source.close();
  const url = apiURL('events', { since: lastSeq });
  const es = new EventSource(url);
  source = es;
  es.addEventListener('open', () => {
    retryMs = 1000;
    setLive(true);
  });
  es.addEventListener('cos', (msg) => {
    let ev;
    try {
      ev = JSON.parse(msg.data);
    } catch {
      return;
    }
    if (typeof ev.seq !== 'number' || ev.seq <= lastSeq) return;
    lastSeq = ev.seq;
    for (const fn of subscribers) {
      try {
        fn(ev);
      } catch (err) {
        console.warn('live subscriber failed', err);
      }
    }
  });
  es.addEventListener('error', () => {
    setLive(false);
    if (es.readyState !== EventSource.CLOSED) return; // the browser retries with Last-Event-ID
    es.close();
    if (source === es) source = null;
    timer = setTimeout(async () => {
      // A closed stream may mean the login expired: ask before retrying.
      try {
        const { data } = await api('session');
        if (data.auth_required && !data.authenticated) await askToken();
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
