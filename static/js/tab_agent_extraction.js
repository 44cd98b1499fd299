// tab_agent_extraction.js - the AgenticExtraction tab (seed 001 §7.4-7.10):
// configuration (provider, model and prices, current parameters or a
// starting profile, target, max iterations), status with timing, score,
// tokens and cost, the current parameters against the best, the
// hexagonalness chart, the last prompt and response, the completion
// summary and the controls: Stop, Accept Best, Reset, Apply to the
// Extraction tab, Save Parameters (a profile), New Run.

import { api, errorText, url } from './api.js';
import { $, el, fmt, toast, promptDialog, confirmDialog } from './dom.js';
import { LineChart } from './agent_chart.js';
import { loadProviders, collapsibles, copyText, setFollower, previewLayer, prerequisites, fmtTime, fmtInt, fmtUsd, finishText, textStream } from './agent_common.js';
import { watchRun, approvalCard } from './agent_chat.js';

const PREFIX = 'agenticExtractionSection_';
const DEFAULTS = { status: false, params: false, chart: false, prompt: true, response: true };
const PARAM_KEYS = ['method', 'threshold', 'min_diameter_um', 'max_diameter_um', 'min_circularity', 'clahe_clip', 'clahe_kernel', 'blur_sigma', 'auto_prominence', 'auto_smoothing', 'neighbor_graph', 'cull_long_edges', 'cull_factor'];

export function initAgentExtraction(ws) {
  const root = $('#tab-agentic-extraction');
  if (!root) return null;
  const store = ws.store;
  const q = (id) => root.querySelector('#' + id);
  const follower = setFollower(ws);
  const card = approvalCard(q('agentExtApproval'), previewLayer(ws));
  const chart = new LineChart(q('agentExtChart'), {
    series: [{ key: 'hexagonalness', label: 'Hexagonalness', color: '#4caf50' }],
    bestKey: 'hexagonalness', target: Number(q('agentExtTarget').value) || 0.7, xMax: 10,
    describe: (p) => `hexagonalness ${fmt(p.hexagonalness, 3)}, ${p.n_tubercles ?? '-'} tubercles${p.phase ? ', ' + p.phase.replace(/_/g, ' ') : ''}`,
  });
  let run = null, lastRunId = null, last = null;
  const stamps = { promptAt: null, responseAt: null, prompt: '', response: '' };

  collapsibles(root, PREFIX, DEFAULTS);
  root.addEventListener('expand', () => chart.draw());
  loadProviders(q('agentExtProvider'), q('agentExtModel'), q('agentExtModelPricing'));
  api('GET', 'api/profiles').then((res) => {
    if (!res.ok) return;
    const sel = q('agentExtProfile');
    sel.append(...res.data.profiles.filter(p => p.builtin).map(p => el('option', { value: p.name }, p.name)));
  });
  q('agentExtTarget').addEventListener('input', () => chart.setTarget(Number(q('agentExtTarget').value)));

  function buttons() {
    const why = prerequisites(ws);
    q('agentExtStart').disabled = !!why || !!run;
    q('agentExtStart').title = why;
    q('agentExtPrereq').textContent = why;
    q('agentExtStop').disabled = !run;
    const haveBest = !!(last && last.best_params);
    q('agentExtAccept').disabled = !haveBest;
    q('agentExtReset').disabled = !!run || !lastRunId;
    q('agentExtApply').disabled = !haveBest;
    q('agentExtSaveProfile').disabled = !haveBest;
  }

  function renderParams(cur, best) {
    const rows = PARAM_KEYS.filter(k => cur && cur[k] !== undefined).map(k => {
      const changed = best && best[k] !== undefined && JSON.stringify(best[k]) !== JSON.stringify(cur[k]);
      return el('tr', { className: changed ? 'changed' : '' },
        el('th', null, k), el('td', null, String(cur[k])),
        el('td', { className: 'muted' }, changed ? `(best ${best[k]}) ◄` : ''));
    });
    q('agentExtParams').replaceChildren(...rows);
  }

  function render(st) {
    last = st;
    const t = st.timing || {};
    q('agentExtState').textContent = st.state;
    q('agentExtPhase').textContent = (st.phase || '-').replace(/_/g, ' ');
    q('agentExtIteration').textContent = `${st.iteration || 0} of ${st.max_iterations || q('agentExtMaxIter').value}`;
    q('agentExtElapsed').textContent = fmtTime(t.elapsed_seconds ?? st.elapsed_seconds);
    q('agentExtIterTime').textContent = fmtTime(t.iteration_seconds ?? st.step_time_seconds);
    q('agentExtAvgTime').textContent = fmtTime(t.avg_iteration_seconds);
    const cm = st.current_metrics || {};
    q('agentExtCurrent').textContent = fmt(cm.hexagonalness, 3);
    q('agentExtBest').textContent = typeof st.best_score === 'number' ? `${fmt(st.best_score, 3)} (iteration ${st.best_iteration})` : '-';
    const u = st.usage || {};
    q('agentExtTokens').textContent = `${fmtInt(u.input_tokens)} in / ${fmtInt(u.output_tokens)} out`;
    q('agentExtCost').textContent = fmtUsd(u.cost_usd) + (u.cost_estimated ? ' (estimate)' : '');
    q('agentExtModelUsed').textContent = u.model || st.model || '-';
    renderParams(st.current_params, st.best_params);
    chart.setData((st.history || []).map(h => ({ ...h })), Number(st.max_iterations) || 10);
    if (typeof st.target_score === 'number') chart.setTarget(st.target_score);
    const since = st.started_at ? (Date.now() / 1000 - st.started_at) : 0;
    if (st.last_prompt && st.last_prompt !== stamps.prompt) { stamps.prompt = st.last_prompt; stamps.promptAt = since; q('agentExtPrompt').textContent = st.last_prompt; }
    if (st.last_response && st.last_response !== stamps.response) { stamps.response = st.last_response; stamps.responseAt = since; q('agentExtResponse').textContent = st.last_response; }
    q('agentExtPromptStamp').textContent = stamps.promptAt != null ? `[+${stamps.promptAt.toFixed(1)}s, iteration ${st.iteration || 0}]` : '';
    q('agentExtResponseStamp').textContent = stamps.responseAt != null ? `[received at +${stamps.responseAt.toFixed(1)}s]` : '';
    if (st.pending_approval && run) card.show(run.id, st.pending_approval); else card.hide();
    root.dataset.state = st.state;
    buttons();
  }

  function summary(st) {
    const f = finishText(st.finish_reason, st.error);
    const bm = st.best_metrics || {};
    const u = st.usage || {};
    const t = st.timing || {};
    const box = q('agentExtSummary');
    const params = st.best_params ? PARAM_KEYS.filter(k => st.best_params[k] !== undefined).map(k => el('li', null, `${k}: ${st.best_params[k]}`)) : [];
    box.replaceChildren(
      el('p', { className: 'summary-reason ' + f.cls }, f.text),
      el('p', null, `Best result: iteration ${st.best_iteration ?? '-'} of ${st.iteration || 0} used`),
      el('p', null, `Final hexagonalness: ${fmt(st.best_score, 3)}`),
      el('p', null, `Tubercles: ${bm.n_tubercles ?? '-'} | Connections: ${bm.n_edges ?? '-'}`),
      el('p', null, `Total wallclock time: ${fmtTime(t.elapsed_seconds ?? st.elapsed_seconds)}`),
      el('p', null, `Model: ${u.model || st.model || '-'}`),
      el('p', null, `Tokens: ${fmtInt(u.input_tokens)} input / ${fmtInt(u.output_tokens)} output (${fmtInt((u.input_tokens || 0) + (u.output_tokens || 0))} total)`),
      el('p', null, `Estimated cost: ${fmtUsd(u.cost_usd)}`),
      params.length ? el('details', null, el('summary', null, 'Optimal parameters'), el('ul', { className: 'plain' }, ...params)) : null);
    box.hidden = false;
  }

  function showTranscript(id) {
    const a = document.getElementById('agentExtTranscript');
    if (!a || !id) return;
    a.href = url(`api/agent/transcript/${id}`);
    a.hidden = false;
  }

  function attach(id) {
    showTranscript(id);
    const text = textStream(id, q('agentExtStream'));
    run = { id, text };
    lastRunId = id;
    stamps.prompt = stamps.response = '';
    stamps.promptAt = stamps.responseAt = null;
    q('agentExtSummary').hidden = true;
    follower.start();
    buttons();
    run.watcher = watchRun(id, {
      onStatus: (st) => { render(st); text.pull(); },
      onEnd: async (st) => {
        render(st);
        await text.pull();
        card.hide();
        run = null;
        summary(st);
        await follower.stop();
        buttons();
        root.dataset.done = String(id);
      },
    });
  }

  q('agentExtStart').addEventListener('click', async () => {
    const why = prerequisites(ws);
    if (why) { toast(why, 'warning'); return; }
    const useCurrent = q('agentExtUseCurrent').checked;
    const body = {
      image_id: store.imageId, set_id: store.set.id,
      provider: q('agentExtProvider').value || undefined,
      target_score: Number(q('agentExtTarget').value) || 0.7,
      max_iterations: Number(q('agentExtMaxIter').value) || 10,
      use_current_params: useCurrent,
      approve_each_step: q('agentExtApprove').checked,
    };
    if (q('agentExtModel').value) body.model = q('agentExtModel').value;
    if (!useCurrent) body.profile = q('agentExtProfile').value || 'default';
    q('agentExtStart').disabled = true;
    const res = await api('POST', 'api/agent/start', body);
    if (!res.ok) { toast('The optimiser could not start: ' + errorText(res), 'error', 6000); buttons(); return; }
    delete root.dataset.done;
    attach(res.data.run_id);
  });

  q('agentExtStop').addEventListener('click', async () => {
    if (!run) return;
    q('agentExtStop').disabled = true;
    const res = await api('POST', `api/agent/stop/${run.id}`);
    if (!res.ok) toast('Stop: ' + errorText(res), 'error');
  });

  // Accept Best: stop, then make the best parameters' result the set's
  // content (the worker applies it itself when it ends normally).
  q('agentExtAccept').addEventListener('click', async () => {
    if (!last || !last.best_params) return;
    if (run) {
      await api('POST', `api/agent/stop/${run.id}`);
      while (run) await new Promise(r => setTimeout(r, 100));
    }
    const st = last;
    if (!st.best_applied) {
      await store.queue;
      const res = await store.change('POST', 'extract', { parameters: st.best_params }, 'apply the best parameters');
      if (!res.ok) return;
    } else {
      await store.reload();
    }
    if (ws.applyParams) ws.applyParams(st.best_params);
    ws.log('agent_accept_best', { run_id: lastRunId, hexagonalness: st.best_score });
    toast(`Best parameters applied (hexagonalness ${fmt(st.best_score, 3)})`, 'success');
  });

  q('agentExtReset').addEventListener('click', async () => {
    if (!lastRunId) return;
    if (!(await confirmDialog('Reset', `Undo every change optimiser run ${lastRunId} made to this set?`, 'Reset', true))) return;
    const res = await api('POST', `api/agent/reset/${lastRunId}`);
    if (!res.ok) { toast('Reset: ' + errorText(res), 'error', 6000); return; }
    toast(`Reset: ${res.data.undone_steps} change(s) undone`, 'success');
    await store.reload();
    newRun();
  });

  q('agentExtApply').addEventListener('click', () => {
    if (!last || !last.best_params || !ws.applyParams) return;
    ws.applyParams(last.best_params);
    ws.showTab('extraction');
    toast('Best parameters copied to the Extraction tab', 'success');
  });

  q('agentExtSaveProfile').addEventListener('click', async () => {
    if (!last || !last.best_params) return;
    const name = await promptDialog('Save parameters', 'Profile name', `agent ${new Date().toISOString().slice(0, 10)}`, 'Save');
    if (!name) return;
    const parameters = {};
    for (const k of PARAM_KEYS) if (last.best_params[k] !== undefined) parameters[k] = last.best_params[k];
    let res = await api('POST', 'api/profiles', { name, parameters });
    if (res.status === 409 && await confirmDialog('Overwrite profile', `Replace your profile "${name}"?`, 'Overwrite')) res = await api('POST', 'api/profiles', { name, parameters, overwrite: true });
    if (!res.ok) { if (res.status !== 409) toast('Profile not saved: ' + errorText(res), 'error'); return; }
    toast(`Profile "${name}" saved`, 'success');
  });

  function newRun() {
    if (run) return;
    last = null;
    q('agentExtSummary').hidden = true;
    chart.setData([], Number(q('agentExtMaxIter').value) || 10);
    q('agentExtParams').replaceChildren();
    for (const id of ['agentExtPrompt', 'agentExtResponse', 'agentExtPromptStamp', 'agentExtResponseStamp']) q(id).textContent = '';
    q('agentExtState').textContent = 'idle';
    delete root.dataset.done;
    buttons();
  }
  q('agentExtNewRun').addEventListener('click', newRun);
  q('agentExtCopyPrompt').addEventListener('click', () => copyText(q('agentExtPrompt').textContent, 'Prompt'));
  q('agentExtCopyResponse').addEventListener('click', () => copyText(q('agentExtResponse').textContent, 'Response'));
  // "Use current parameters" is on by default (the original's): the profile is then not used
  const profileFollows = () => { q('agentExtProfile').disabled = q('agentExtUseCurrent').checked; };
  q('agentExtUseCurrent').addEventListener('change', profileFollows);
  profileFollows();

  store.addEventListener('set', buttons);
  store.addEventListener('image', buttons);
  store.addEventListener('data', buttons);
  buttons();
  return { shown(name) { if (name === 'agentic-extraction') chart.draw(); } };
}
