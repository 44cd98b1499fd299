// dom.js - building the page safely: elements from tag + properties with
// text children only (never HTML strings), toasts, and modal dialogs that
// replace the browser's alert/confirm/prompt.

// el('tr', {className: 'x', dataset: {id: 1}, onclick: f}, 'text', child, ...)
export function el(tag, props, ...children) {
  const e = document.createElement(tag);
  if (props) {
    for (const [k, v] of Object.entries(props)) {
      if (v === undefined || v === null) continue;
      if (k === 'dataset') Object.assign(e.dataset, v);
      else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
      else if (k in e && k !== 'list' && k !== 'form') e[k] = v;
      else e.setAttribute(k, String(v));
    }
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

let toastSink = null;
// Every toast is also recorded in the event log (as the original did).
export function setToastSink(fn) { toastSink = fn; }

// One toast area (#toasts: in the workspace it lies over the image, never
// over the panel's controls), at most TOAST_MAX toasts at once. Errors stay
// until dismissed (the newest ones wait behind the visible ones, counted);
// the others fade after ms, and a new one pushes the oldest of those out.
// The area is a polite live region; errors are alerts.
const TOAST_MAX = 2;
const waiting = [];

function toastBox() { return $('#toasts'); }

function showWaiting() {
  const box = toastBox();
  if (!box) return;
  while (waiting.length && box.querySelectorAll('.toast').length < TOAST_MAX) box.append(waiting.shift());
  let more = box.querySelector('.toast-more');
  if (waiting.length) {
    if (!more) more = el('div', { className: 'toast-more' });
    more.textContent = `${waiting.length} more error${waiting.length === 1 ? '' : 's'} after these`;
    box.append(more);
  } else if (more) {
    more.remove();
  }
}

function dropToast(t) {
  t.remove();
  showWaiting();
}

export function toast(message, type = 'info', ms = 3500) {
  if (toastSink) toastSink(type, message);
  const box = toastBox();
  if (!box) return;
  const error = type === 'error';
  const t = el('div', { className: `toast toast-${type}`, role: error ? 'alert' : 'status' }, el('span', { className: 'toast-text' }, message));
  if (error) {
    t.append(el('button', { type: 'button', className: 'toast-close', 'aria-label': 'Dismiss this message', title: 'Dismiss', onclick: () => dropToast(t) }, '×'));
  } else {
    setTimeout(() => {
      t.classList.add('fading');
      setTimeout(() => dropToast(t), 400);
    }, ms);
  }
  const shown = [...box.querySelectorAll('.toast')];
  if (shown.length >= TOAST_MAX) {
    const old = shown.find(x => !x.classList.contains('toast-error'));
    if (old) old.remove();
    else if (error) { waiting.push(t); showWaiting(); return; }
    else return; // two errors wait for the user: the note is in the log
  }
  box.append(t);
  showWaiting();
}

// modal({title, body: Node|string, buttons: [{text, value, primary, danger}]})
// resolves to the value of the button pressed (null on Esc/close).
export function modal({ title, body, buttons, init }) {
  const dlg = $('#modal');
  const bodyBox = $('#modal-body');
  const btnBox = $('#modal-buttons');
  $('#modal-title').textContent = title;
  bodyBox.replaceChildren(typeof body === 'string' ? el('p', null, body) : body);
  btnBox.replaceChildren();
  const opener = document.activeElement;
  return new Promise((resolve) => {
    let result = null;
    for (const b of buttons || [{ text: 'OK', value: true, primary: true }]) {
      const btn = el('button', {
        type: 'button', className: b.primary ? 'primary' : (b.danger ? 'danger' : ''),
        onclick: () => { result = b.value; dlg.close(); },
      }, b.text);
      if (b.id) btn.id = b.id;
      btnBox.append(btn);
    }
    // Tab and Shift+Tab go round the dialog's own controls
    const trap = (e) => {
      if (e.key !== 'Tab') return;
      const f = focusables(dlg);
      if (!f.length) return;
      const first = f[0], last = f[f.length - 1];
      if (e.shiftKey && document.activeElement === first) { e.preventDefault(); last.focus(); }
      else if (!e.shiftKey && document.activeElement === last) { e.preventDefault(); first.focus(); }
    };
    const onClose = () => {
      dlg.removeEventListener('close', onClose);
      dlg.removeEventListener('keydown', trap);
      // focus goes back where it was when the dialog opened
      if (opener && opener.isConnected && typeof opener.focus === 'function') opener.focus();
      resolve(result);
    };
    dlg.addEventListener('close', onClose);
    dlg.addEventListener('keydown', trap);
    dlg.setAttribute('aria-labelledby', 'modal-title');
    dlg.showModal();
    if (init) init(dlg);
    else {
      const p = btnBox.querySelector('button.primary, button.danger') || btnBox.querySelector('button');
      if (p) p.focus();
    }
  });
}

function focusables(root) {
  return [...root.querySelectorAll('button, input, select, textarea, a[href], [tabindex]:not([tabindex="-1"])')]
    .filter(e => !e.disabled && e.offsetParent !== null);
}

export async function confirmDialog(title, text, okText = 'OK', danger = false) {
  const v = await modal({
    title, body: text,
    buttons: [{ text: 'Cancel', value: false }, { text: okText, value: true, primary: !danger, danger }],
  });
  return v === true;
}

// Resolves to the entered text, or null when cancelled.
export async function promptDialog(title, label, value = '', okText = 'OK') {
  const input = el('input', { type: 'text', value, id: 'modal-input', maxLength: 64 });
  const body = el('label', { className: 'stack-label' }, label, input);
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') { e.preventDefault(); $('#modal-ok').click(); }
  });
  const v = await modal({
    title, body,
    buttons: [{ text: 'Cancel', value: null }, { text: okText, value: 'ok', primary: true, id: 'modal-ok' }],
    init: () => { input.focus(); input.select(); },
  });
  return v === 'ok' ? input.value.trim() : null;
}

export function fmt(v, digits = 2) {
  return typeof v === 'number' && isFinite(v) ? v.toFixed(digits) : '-';
}
