// The keyboard: page shortcuts, the skip link, and the board's roving
// tabindex (one Tab stop per column — its current card — with j/k and the
// arrow keys moving between cards; a card's own buttons and links are Tab
// stops only while focus is inside that card).
//
// Shortcuts (none fires while typing in a field or while a dialog is open):
//   ?        the shortcuts dialog (#shortcuts)
//   /        focus the visible view's search box ([data-shortcut~="/"])
//   n        the visible view's "new" control ([data-shortcut~="n"])
//   j / k    next / previous card (in reading order, column by column)
//   ↓ ↑      next / previous card in the column (focus on a card)
//   ← →      the current card of the previous / next column
//   c        claim the focused card; focus stays on the card
// The DOM the board module renders (.column[data-status] > .cards > .card
// [data-task-id], buttons [data-action]) is all this module reads.

const $ = (id) => document.getElementById(id);

// current maps a column's status to the task id of its Tab stop.
const current = new Map();

export function initKeys() {
  document.addEventListener('keydown', onKey);
  const skip = $('skip-link');
  skip.addEventListener('click', (ev) => {
    // The page routes on location.hash: focus the content instead of
    // following "#main".
    ev.preventDefault();
    $('main').focus();
  });
  $('shortcuts-open').addEventListener('click', () => $('shortcuts').showModal());
  $('shortcuts-close').addEventListener('click', () => $('shortcuts').close());
  const board = $('board');
  new MutationObserver(() => syncRoving()).observe(board, { childList: true, subtree: true });
  board.addEventListener('focusin', (ev) => {
    const card = ev.target.closest('.card');
    const col = card && card.closest('.column');
    if (col) current.set(col.dataset.status, card.dataset.taskId);
    syncRoving();
  });
  board.addEventListener('focusout', () => queueMicrotask(syncRoving));
  syncRoving();
}

// syncRoving gives each column one Tab stop (its current card, else its
// first) and makes a card's controls Tab stops only while it holds focus.
function syncRoving() {
  for (const col of $('board').querySelectorAll('.column')) {
    const cards = [...col.querySelectorAll('.card')];
    const want = current.get(col.dataset.status);
    const stop = cards.find((c) => c.dataset.taskId === want) || cards[0];
    for (const card of cards) {
      card.tabIndex = card === stop ? 0 : -1;
      const inside = card.contains(document.activeElement);
      for (const c of card.querySelectorAll('a[href], button, input, select, textarea')) c.tabIndex = inside ? 0 : -1;
    }
  }
}

function typing(t) {
  return t instanceof HTMLElement && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
}

// visible is the first element matching sel in the shown view.
function visible(sel) {
  return [...document.querySelectorAll(`main section[data-panel]:not([hidden]) ${sel}`)].find((e) => !e.disabled && e.offsetParent !== null);
}

function onKey(ev) {
  if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev.target)) return;
  if (document.querySelector('dialog[open]')) return;
  const card = document.activeElement && document.activeElement.closest && document.activeElement.closest('#board .card');
  let done = true;
  switch (ev.key) {
    case '?': $('shortcuts').showModal(); break;
    case '/': focusEl(visible('[data-shortcut~="/"]')); break;
    case 'n': { const b = visible('[data-shortcut~="n"]'); if (b) b.click(); else done = false; break; }
    case 'j': moveCard(card, 1); break;
    case 'k': moveCard(card, -1); break;
    case 'c': done = claim(card); break;
    case 'ArrowDown': done = Boolean(card) && inColumn(card, 1); break;
    case 'ArrowUp': done = Boolean(card) && inColumn(card, -1); break;
    case 'ArrowRight': done = Boolean(card) && acrossColumns(card, 1); break;
    case 'ArrowLeft': done = Boolean(card) && acrossColumns(card, -1); break;
    default: done = false;
  }
  if (done) ev.preventDefault();
}

function focusEl(e) {
  if (!e) return;
  e.focus();
  if (typeof e.select === 'function') e.select();
}

function boardShown() {
  return !$('view-board').hidden;
}

// moveCard focuses the card step cards after (before) card in reading
// order; with no card focused, the first Tab stop of the board.
function moveCard(card, step) {
  if (!boardShown()) return;
  const all = [...$('board').querySelectorAll('.card')];
  if (!all.length) return;
  if (!card) {
    (all.find((c) => c.tabIndex === 0) || all[0]).focus();
    return;
  }
  const i = all.indexOf(card);
  const next = all[Math.min(all.length - 1, Math.max(0, i + step))];
  if (next) next.focus();
}

function inColumn(card, step) {
  const cards = [...card.closest('.column').querySelectorAll('.card')];
  const next = cards[cards.indexOf(card) + step];
  if (next) next.focus();
  return true;
}

function acrossColumns(card, step) {
  const cols = [...$('board').querySelectorAll('.column')];
  for (let i = cols.indexOf(card.closest('.column')) + step; i >= 0 && i < cols.length; i += step) {
    const cards = [...cols[i].querySelectorAll('.card')];
    if (!cards.length) continue;
    (cards.find((c) => c.tabIndex === 0) || cards[0]).focus();
    return true;
  }
  return true;
}

// claim presses the focused card's Claim button; the board keeps focus on
// the card through the write.
function claim(card) {
  if (!card) return false;
  const b = card.querySelector('button[data-action="claim"]');
  if (!b || b.disabled) return false;
  card.focus();
  b.click();
  return true;
}
