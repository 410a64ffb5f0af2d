// Time travel: one `at` for the whole page (a log seq or an RFC 3339
// time). While it is set the board and the graph read the state as it was
// at that point, the #readonly-banner says so, and every write is disabled.

let current = '';
let shownSeq = null;
const listeners = new Set();

export function at() {
  return current;
}

export function readOnly() {
  return current !== '';
}

// onChange(fn) calls fn() after `at` is set or cleared.
export function onChange(fn) {
  listeners.add(fn);
}

// parseAt returns the canonical `at` for a box value, or throws with a
// message saying what is accepted.
export function parseAt(raw) {
  const v = raw.trim();
  if (v === '') return '';
  if (/^\d+$/.test(v)) {
    const n = Number(v);
    if (!Number.isSafeInteger(n)) throw new Error(`seq ${v} is too large`);
    return String(n);
  }
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(v) && !isNaN(Date.parse(v))) {
    return v.replace(/T(\d{2}:\d{2})(Z|[+-])/, 'T$1:00$2');
  }
  throw new Error(`"${v}" is neither a log seq (a whole number such as 120) nor a time such as 2026-01-02T15:04:05Z`);
}

export function setAt(value) {
  current = value;
  shownSeq = /^\d+$/.test(value) ? Number(value) : null;
  const input = document.getElementById('at-input');
  if (input.value !== value) input.value = value;
  sessionStorage.setItem('cos.at', value);
  renderBanner();
  document.body.classList.toggle('readonly', readOnly());
  for (const fn of listeners) fn();
}

// noteSeq records the log seq a time-travel read reflected (meta.log_seq),
// so a time given as RFC 3339 shows its seq in the banner.
export function noteSeq(seq) {
  if (!readOnly() || typeof seq !== 'number' || seq === shownSeq) return;
  shownSeq = seq;
  renderBanner();
}

function renderBanner() {
  const b = document.getElementById('readonly-banner');
  if (!readOnly()) {
    b.hidden = true;
    b.textContent = '';
    return;
  }
  const where = shownSeq !== null ? `seq ${shownSeq}` : current;
  const when = shownSeq !== null && !/^\d+$/.test(current) ? ` (${current})` : '';
  b.textContent = `Showing the state at ${where}${when} — read-only. Writes are off until you go back to now.`;
  b.hidden = false;
}

export function initTimeTravel(showError) {
  const form = document.getElementById('at-form');
  const input = document.getElementById('at-input');
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    try {
      setAt(parseAt(input.value));
      showError(null);
    } catch (err) {
      showError(Object.assign(err, { code: 'E_ARGUMENT' }));
      input.focus();
    }
  });
  document.getElementById('at-clear').addEventListener('click', () => {
    input.value = '';
    if (readOnly()) setAt('');
  });
  const saved = sessionStorage.getItem('cos.at') || '';
  if (saved) {
    try {
      current = parseAt(saved);
      shownSeq = /^\d+$/.test(current) ? Number(current) : null;
      input.value = current;
      document.body.classList.add('readonly');
      renderBanner();
    } catch {
      sessionStorage.removeItem('cos.at');
    }
  }
}
