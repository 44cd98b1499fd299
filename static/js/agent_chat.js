// agent_chat.js - talking to the editing agent (seed 002) and reviewing
// what agents did: the conversation panel (instruction, suggestion chips,
// the reply streaming in, the history kept with the set), the approval
// card of an approve-each-step run (seed 004), and the list of agent
// actions on the set with a per-action Undo and an Undo-the-whole-run.

import { api, errorText } from './api.js';
import { el, toast, confirmDialog } from './dom.js';
import { clockNow } from './agent_common.js';

export const CHIPS = ['Fill gaps in the lattice', 'Delete isolated tubercles', 'Connect with the Gabriel graph', 'Connect with Delaunay'];

// Polls a run's status every `ms` until it ends; onStatus(st) each time
// something changed (seq), onEnd(st) once. Returns {stop(), runId}.
export function watchRun(runId, { onStatus, onEnd, ms = 250 }) {
  let stopped = false, lastSeq = -1, lastState = '';
  const tick = async () => {
    if (stopped) return;
    const res = await api('GET', `api/agent/status/${runId}`);
    if (stopped) return;
    if (res.ok) {
      const st = res.data;
      if (st.seq !== lastSeq || st.state !== lastState) { lastSeq = st.seq; lastState = st.state; onStatus && onStatus(st); }
      if (!['starting', 'running'].includes(st.state)) { stopped = true; onEnd && onEnd(st); return; }
    } else if (res.status === 404) {
      stopped = true; onEnd && onEnd({ state: 'failed', finish_reason: 'error', error: errorText(res) }); return;
    }
    setTimeout(tick, ms);
  };
  tick();
  return { runId, stop() { stopped = true; } };
}

// The card of a step waiting for approval. host: element; preview: the
// overlay layer. show(runId, pending) / hide().
export function approvalCard(host, preview) {
  let shownFor = null;
  const hide = () => { host.replaceChildren(); host.hidden = true; shownFor = null; preview.clear(); };
  const answer = async (runId, approve, reason) => {
    for (const b of host.querySelectorAll('button')) b.disabled = true;
    const res = await api('POST', `api/agent/approve/${runId}`, { approve, reason });
    if (!res.ok) { toast('Answer not taken: ' + errorText(res), 'error'); for (const b of host.querySelectorAll('button')) b.disabled = false; return; }
    host.dataset.answered = approve ? 'approved' : 'rejected';
    hide();
  };
  const show = (runId, p) => {
    const key = runId + ':' + JSON.stringify(p);
    if (key === shownFor) return;
    shownFor = key;
    preview.show(p.tool, p.preview);
    const reason = el('input', { type: 'text', className: 'approval-reason', placeholder: 'Reason for rejecting (sent to the model)', maxLength: 500 });
    host.replaceChildren(el('div', { className: 'approval-card', role: 'alertdialog', 'aria-label': 'Step waiting for approval' },
      el('div', { className: 'approval-title' }, 'Approve this step? ', el('code', { className: 'approval-tool' }, p.tool)),
      p.reasoning ? el('p', { className: 'approval-reasoning' }, p.reasoning) : null,
      el('pre', { className: 'approval-args' }, JSON.stringify(p.arguments || {}, null, 1)),
      p.preview && Object.keys(p.preview).length ? el('p', { className: 'muted' }, 'The dashed mark on the image shows where.') : null,
      p.timeout_s ? el('p', { className: 'muted' }, `Without an answer within ${p.timeout_s} s the run stops.`) : null,
      el('div', { className: 'row' },
        el('button', { type: 'button', className: 'primary approval-approve', onclick: () => answer(runId, true, '') }, '✓ Approve'),
        reason,
        el('button', { type: 'button', className: 'danger approval-reject', onclick: () => answer(runId, false, reason.value.trim() || 'rejected by the user') }, '✕ Reject'))));
    host.hidden = false;
  };
  hide();
  return { show, hide };
}

// The agents' actions on the open set, newest first, grouped by run.
export function actionList(ws, host) {
  const store = ws.store;
  let loading = false, again = false;
  const undoOne = async (a, row) => {
    const res = await api('POST', `api/sets/${store.set.id}/journal/${a.id}/undo`);
    if (!res.ok) {
      const why = row.querySelector('.action-why');
      why.textContent = `Cannot undo: ${errorText(res)}`;
      why.hidden = false;
      return;
    }
    toast(`Undone: ${a.label}`, 'success', 2000);
    await store.reload();
    refresh();
  };
  const undoRun = async (runId, n) => {
    if (!(await confirmDialog('Undo the whole run', `Undo the ${n} change(s) of agent run ${runId} that can still be undone?`, 'Undo run', true))) return;
    const res = await api('POST', `api/agent/reset/${runId}`);
    if (!res.ok) toast('Undo of the run: ' + errorText(res), 'error', 6000);
    else {
      const skipped = (res.data.skipped_steps || []).length;
      toast(`Run ${runId}: ${res.data.undone_steps} change(s) undone${skipped ? `, ${skipped} left (they no longer apply)` : ''}`, 'success');
    }
    await store.reload();
    refresh();
  };
  async function refresh() {
    if (!store.set) { host.replaceChildren(); return; }
    if (loading) { again = true; return; }
    loading = true;
    try {
      const res = await api('GET', `api/sets/${store.set.id}/journal`);
      if (!res.ok) return;
      const acts = (res.data.actions || []).filter(a => a.agent_run_id != null && a.kind !== 'undo_step');
      const runs = new Map();
      for (const a of acts) { if (!runs.has(a.agent_run_id)) runs.set(a.agent_run_id, []); runs.get(a.agent_run_id).push(a); }
      if (!runs.size) { host.replaceChildren(el('p', { className: 'muted' }, 'No agent has changed this set yet.')); return; }
      host.replaceChildren(...[...runs].map(([runId, list]) => {
        const live = list.filter(a => a.can_undo).length;
        return el('div', { className: 'action-run', dataset: { run: String(runId) } },
          el('div', { className: 'action-run-head' }, `Run ${runId} · ${list.length} action(s)`,
            el('button', { type: 'button', className: 'small action-undo-run', disabled: !live, onclick: () => undoRun(runId, live) }, 'Undo run')),
          el('ul', { className: 'action-items' }, ...list.map(a => {
            // a step that no longer applies says why before anyone presses its button
            const why = a.state === 'done' && !a.can_undo && a.why ? `Cannot undo: ${a.why}` : '';
            const row = el('li', { className: 'action-item state-' + a.state, dataset: { op: String(a.id) } },
              el('span', { className: 'action-label' }, a.label),
              a.state !== 'done' ? el('span', { className: 'badge' }, a.state) : null,
              el('button', { type: 'button', className: 'small action-undo', disabled: !a.can_undo, title: a.can_undo ? 'Undo only this action' : (a.why || ''), onclick: () => undoOne(a, row) }, 'Undo'),
              el('div', { className: 'action-why warn-text', hidden: !why }, why));
            return row;
          })));
      }));
    } finally {
      loading = false;
      if (again) { again = false; refresh(); }
    }
  }
  // the list follows the set: a change by anyone may make a step undoable or not
  let soon = null;
  store.addEventListener('set', () => {
    if (!host.isConnected || host.offsetParent === null) return;
    clearTimeout(soon);
    soon = setTimeout(refresh, 250);
  });
  return { refresh };
}

// The conversation panel. opts(): {provider, model, approve_each_step}
// from the tab's configuration; card: the approval card; follower: the
// set follower; onRun(runId, running): the tab's hook (buttons, actions).
export function chatPanel(ws, host, { opts, card, follower, onRun }) {
  const store = ws.store;
  const log = el('div', { className: 'chat-log', id: 'chat-log', 'aria-live': 'polite' });
  const input = el('textarea', { id: 'chat-input', rows: 2, maxLength: 4000, placeholder: 'Tell the agent what to do, e.g. "fill the gaps in the upper half"' });
  const send = el('button', { type: 'button', className: 'primary', id: 'chat-send' }, 'Send');
  const stopBtn = el('button', { type: 'button', id: 'chat-stop', hidden: true }, 'Stop');
  const chips = el('div', { className: 'chips' }, ...CHIPS.map(c => el('button', { type: 'button', className: 'chip', onclick: () => { input.value = c; input.focus(); } }, c)));
  host.replaceChildren(chips, el('div', { className: 'chat-input-row' }, input, send, stopBtn), log);
  let running = null;

  const bubble = (who, text, cls = '') => el('div', { className: `chat-msg chat-${who} ${cls}` },
    el('div', { className: 'chat-who' }, who === 'user' ? 'You' : 'Agent'), el('div', { className: 'chat-text' }, text));

  async function loadHistory() {
    if (!store.set || running) return;
    const res = await api('GET', `api/sets/${store.set.id}/history`);
    if (!res.ok) return;
    const ev = (res.data.history || []).filter(h => h.type === 'agent_chat');
    log.replaceChildren(...ev.map(h => el('div', { className: 'chat-exchange' }, bubble('agent', h.reply || '(no reply)'), bubble('user', h.instruction || ''))));
    if (!ev.length) log.append(el('p', { className: 'muted' }, 'No conversation on this set yet.'));
  }

  async function start() {
    const instruction = input.value.trim();
    if (!instruction) { toast('Type an instruction first', 'warning'); return; }
    if (!store.set) { toast('Open a set first', 'warning'); return; }
    const o = opts();
    send.disabled = true;
    const res = await api('POST', 'api/agent/chat/start', { image_id: store.imageId, set_id: store.set.id, instruction, ...o });
    if (!res.ok) { send.disabled = false; toast('The agent could not start: ' + errorText(res), 'error', 6000); return; }
    input.value = '';
    const runId = res.data.run_id;
    const reply = el('div', { className: 'chat-text chat-streaming', id: 'chat-reply-live' }, '');
    const ex = el('div', { className: 'chat-exchange live', dataset: { run: String(runId) } },
      el('div', { className: 'chat-msg chat-agent' }, el('div', { className: 'chat-who' }, `Agent · ${clockNow()}`), reply),
      bubble('user', instruction));
    for (const m of log.querySelectorAll('p.muted')) m.remove();
    log.prepend(ex);
    stopBtn.hidden = false;
    follower.start();
    onRun && onRun(runId, true);
    let offset = 0, textDone = false, ended = null;
    const pullText = async () => {
      while (!textDone) {
        const t = await api('GET', `api/agent/chat/text/${runId}?since=${offset}`);
        if (!t.ok) break;
        if (t.data.text) reply.textContent += t.data.text;
        offset = t.data.offset;
        if (t.data.complete) { textDone = true; break; }
        await new Promise(r => setTimeout(r, 150));
      }
    };
    const textP = pullText();
    running = watchRun(runId, {
      onStatus: (st) => {
        if (st.pending_approval) card.show(runId, st.pending_approval); else card.hide();
      },
      onEnd: (st) => { ended = st; },
    });
    stopBtn.onclick = () => api('POST', `api/agent/stop/${runId}`);
    await textP;
    while (!ended) await new Promise(r => setTimeout(r, 100));
    card.hide();
    reply.classList.remove('chat-streaming');
    if (!reply.textContent && ended.reply) reply.textContent = ended.reply;
    if (ended.state !== 'completed') reply.append(el('div', { className: 'warn-text' }, `(${ended.state}: ${ended.finish_reason || ''}${ended.error ? ' - ' + ended.error : ''})`));
    ex.classList.remove('live');
    ex.dataset.done = '1';
    running = null;
    stopBtn.hidden = true;
    send.disabled = false;
    await follower.stop();
    onRun && onRun(runId, false);
  }

  send.addEventListener('click', start);
  input.addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); start(); } });
  return { loadHistory, get busy() { return !!running; }, setEnabled(on) { send.disabled = !on || !!running; } };
}
