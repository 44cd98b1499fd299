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

export function toast(message, type = 'info', ms = 3500) {
  const box = $('#toasts');
  if (!box) return;
  const t = el('div', { className: `toast toast-${type}`, role: type === 'error' ? 'alert' : 'status' }, message);
  box.append(t);
  setTimeout(() => t.remove(), ms);
  if (toastSink) toastSink(type, message);
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
    const onClose = () => { dlg.removeEventListener('close', onClose); resolve(result); };
    dlg.addEventListener('close', onClose);
    dlg.showModal();
    if (init) init(dlg);
  });
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
