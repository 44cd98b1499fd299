// agent_common.js - what both agent tabs share: the provider and model
// selects with their prices, collapsible sections remembered in
// localStorage, copy buttons, time and money formats, following the set
// while an agent changes it (at most 10 reloads a second), and a preview
// drawn on the overlay for a step waiting for approval.

import { api } from './api.js';
import { $, toast } from './dom.js';

export function fmtTime(s) {
  if (typeof s !== 'number' || !isFinite(s)) return '-';
  if (s < 60) return s.toFixed(1) + 's';
  const m = Math.floor(s / 60);
  return `${m}m ${(s - m * 60).toFixed(1)}s`;
}

export function fmtClock(s) {
  s = Math.max(0, Math.floor(s || 0));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export function fmtInt(n) {
  return typeof n === 'number' && isFinite(n) ? Math.round(n).toLocaleString('en-US') : '0';
}

export function fmtUsd(x) {
  if (typeof x !== 'number' || !isFinite(x)) return '$0.00';
  return '$' + (x < 0.1 && x > 0 ? x.toFixed(4) : x.toFixed(2));
}

export function clockNow() {
  return new Date().toTimeString().slice(0, 8);
}

// Fills a provider select and a model select (with the price line) from
// GET /api/agent/providers; unconfigured providers stay listed but disabled.
export async function loadProviders(providerSel, modelSel, priceEl) {
  const res = await api('GET', 'api/agent/providers');
  if (!res.ok) { priceEl.textContent = 'Providers could not be loaded.'; return null; }
  const list = res.data.providers || [];
  providerSel.replaceChildren(...list.map(p => {
    const o = document.createElement('option');
    o.value = p.name;
    o.textContent = p.configured ? p.name : `${p.name} (no API key)`;
    o.disabled = !p.configured;
    return o;
  }));
  providerSel.value = res.data.default_provider || 'local';
  const fillModels = () => {
    const p = list.find(x => x.name === providerSel.value);
    const models = p ? p.models || [] : [];
    modelSel.replaceChildren(...models.map(m => {
      const o = document.createElement('option');
      o.value = m.id;
      o.textContent = m.id;
      o.selected = p && m.id === p.default_model;
      return o;
    }));
    showPrice();
  };
  const showPrice = () => {
    const p = list.find(x => x.name === providerSel.value);
    const m = p && (p.models || []).find(x => x.id === modelSel.value);
    priceEl.textContent = m ? `input: $${Number(m.input_per_mtok).toFixed(2)}/M, output: $${Number(m.output_per_mtok).toFixed(2)}/M` : '';
  };
  providerSel.addEventListener('change', fillModels);
  modelSel.addEventListener('change', showPrice);
  fillModels();
  return list;
}

// Sections with a header [data-section] and a body; the collapsed state
// lives under `${prefix}${name}_collapsed` (seed 000's key scheme).
export function collapsibles(root, prefix, defaults) {
  for (const head of root.querySelectorAll('[data-section]')) {
    const name = head.dataset.section;
    const body = head.nextElementSibling;
    const key = `${prefix}${name}_collapsed`;
    const stored = localStorage.getItem(key);
    const set = (c) => {
      body.hidden = c;
      head.classList.toggle('collapsed', c);
      head.setAttribute('aria-expanded', String(!c));
    };
    set(stored === null ? defaults[name] !== false : stored === 'true');
    head.addEventListener('click', (e) => {
      if (e.target.closest('button')) return;
      const c = !body.hidden;
      set(c);
      localStorage.setItem(key, String(c));
      if (!c) head.dispatchEvent(new CustomEvent('expand', { bubbles: true }));
    });
  }
}

export async function copyText(text, what) {
  try {
    await navigator.clipboard.writeText(text || '');
    toast(`${what} copied`, 'success', 1500);
  } catch {
    toast(`${what} could not be copied`, 'warning');
  }
}

// Keeps the open set in step with an agent's changes while it runs: polls
// the revision every 100 ms (so at most 10 redraws a second) and reloads
// when it moved. start() / stop(); ws.agentQuiet silences the "changed
// elsewhere" toast meanwhile.
export function setFollower(ws) {
  let timer = null, busy = false;
  const store = ws.store;
  const tick = async () => {
    if (busy || !store.set || store.busy) return;
    busy = true;
    try {
      const id = store.set.id;
      const res = await api('GET', `api/sets/${id}/revision`);
      if (res.ok && store.set && store.set.id === id && res.data.revision > store.revision) await store.reload();
    } finally {
      busy = false;
    }
  };
  return {
    start() { if (!timer) { ws.agentQuiet = (ws.agentQuiet || 0) + 1; timer = setInterval(tick, 100); } },
    async stop() {
      if (!timer) return;
      clearInterval(timer);
      timer = null;
      ws.agentQuiet = Math.max(0, (ws.agentQuiet || 1) - 1);
      await tick();
    },
  };
}

// The pending step on the overlay: where a tubercle would be added, moved
// from and to, or deleted. Drawn in image coordinates.
export function previewLayer(ws) {
  let pv = null;
  const draw = (ctx, view, phase) => {
    if (!pv || phase !== 'image') return;
    const px = 1 / view.scale;
    const r = pv.radius_px || (ws.store.stats && ws.store.stats.mean_diameter_um && ws.store.umPerPx
      ? ws.store.stats.mean_diameter_um / ws.store.umPerPx / 2 : 10);
    ctx.save();
    ctx.lineWidth = 3 * px;
    ctx.setLineDash([6 * px, 4 * px]);
    const ring = (p, color) => {
      ctx.beginPath();
      ctx.arc(p.x, p.y, r + 4 * px, 0, 2 * Math.PI);
      ctx.strokeStyle = color;
      ctx.stroke();
    };
    if (pv.kind === 'add_tubercle' && pv.position) ring(pv.position, '#22c55e');
    if (pv.kind === 'delete_tubercle' && pv.position) {
      ring(pv.position, '#ef4444');
      ctx.setLineDash([]);
      ctx.beginPath();
      ctx.moveTo(pv.position.x - r, pv.position.y - r); ctx.lineTo(pv.position.x + r, pv.position.y + r);
      ctx.moveTo(pv.position.x + r, pv.position.y - r); ctx.lineTo(pv.position.x - r, pv.position.y + r);
      ctx.stroke();
    }
    if (pv.kind === 'move_tubercle' && pv.from && pv.to) {
      ring(pv.from, '#f59e0b');
      ring(pv.to, '#22c55e');
      ctx.setLineDash([]);
      ctx.beginPath();
      ctx.moveTo(pv.from.x, pv.from.y);
      ctx.lineTo(pv.to.x, pv.to.y);
      ctx.strokeStyle = '#f59e0b';
      ctx.stroke();
    }
    ctx.restore();
  };
  if (ws.overlayHooks) ws.overlayHooks.push(draw);
  return {
    show(tool, preview) {
      pv = preview && Object.keys(preview).length ? { kind: tool, ...preview } : null;
      ws.viewer.request();
    },
    clear() { if (pv) { pv = null; ws.viewer.request(); } },
    get current() { return pv; },
  };
}

// Start needs a set and a calibrated image (seed 000's checklist).
export function prerequisites(ws) {
  const s = ws.store;
  if (!s.set) return 'Open a set first.';
  if (!(s.umPerPx > 0)) return 'Set a calibration first (Calibration tab).';
  return '';
}

export const FINISH_TEXT = {
  target_achieved: ['ok', '✓ Target achieved'],
  plateau_detected: ['ok', '✓ Optimization complete (plateau, no further improvement)'],
  finished: ['ok', '✓ Finished by the agent'],
  accepted: ['ok', '✓ Accepted by the agent'],
  end_turn: ['ok', '✓ Finished'],
  no_tool_call: ['ok', '✓ Finished (no more actions)'],
  max_iterations: ['warn', '⚠ Max iterations reached'],
  max_cost: ['warn', '⚠ Cost limit reached'],
  max_tokens: ['warn', '⚠ Token limit reached'],
  timeout: ['warn', '⚠ Time limit reached'],
  user_stopped: ['warn', '⚠ Stopped by user'],
  approval_timeout: ['warn', '⚠ Stopped: no answer to a pending step in time'],
  worker_died: ['err', '✗ The agent process died'],
  start_failed: ['err', '✗ The agent could not be started'],
  error: ['err', '✗ Error occurred'],
};

export function finishText(reason, error) {
  const [cls, text] = FINISH_TEXT[reason] || ['ok', reason ? `Ended: ${reason}` : 'Ended'];
  return { cls, text: error ? `${text}: ${error}` : text };
}

export function byId(id) { return $('#' + id); }

// The model's text of a run as it streams (GET api/agent/text/{id}), appended
// to a <pre>: pull() after each status fetches what came since the last call.
export function textStream(id, pre) {
  let offset = 0;
  let busy = false;
  if (pre) { pre.textContent = ''; pre.hidden = false; }
  return {
    async pull() {
      if (!pre || busy) return;
      busy = true;
      try {
        const res = await api('GET', `api/agent/text/${id}?since=${offset}`);
        if (res.ok && res.data.offset >= offset) {
          pre.textContent += res.data.text;
          offset = res.data.offset;
          pre.scrollTop = pre.scrollHeight;
        }
      } finally { busy = false; }
    },
  };
}
