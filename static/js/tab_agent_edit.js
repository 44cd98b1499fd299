// tab_agent_edit.js - the AgenticEdit tab (seed 000): configuration,
// Start / Stop / Reset (undo every step of the run) / Accept Result (save
// a checkpoint), status, costs, the progress chart (hexagonalness and
// coverage per iteration, read from the run's log), the LLM communication
// and action summary, with the conversation panel (seed 002), the approval
// card (seed 004) and the undoable list of agent actions. The overlay
// follows the agent's changes while it runs.

import { api, errorText, url } from './api.js';
import { $, fmt, toast, confirmDialog } from './dom.js';
import { LineChart } from './agent_chart.js';
import { loadProviders, collapsibles, copyText, setFollower, previewLayer, prerequisites, fmtClock, fmtInt, fmtUsd, finishText, textStream } from './agent_common.js';
import { watchRun, approvalCard, actionList, chatPanel } from './agent_chat.js';

const PREFIX = 'agenticEditSection_';
const DEFAULTS = { status: false, costs: true, chart: true, llm: true, chat: false, actions: false };
// the run log's judgement line; since issue 16 its coverage is that of the scale region
const HEX_LINE = /Hexagonalness: ([\d.]+) (?:->|→) ([\d.]+), Coverage(?: of the scale region)?: ([\d.]+)% (?:->|→) ([\d.]+)%/;

export function initAgentEdit(ws) {
  const root = $('#tab-agentic-edit');
  if (!root) return null;
  const store = ws.store;
  const q = (id) => root.querySelector('#' + id);
  const btn = { start: q('startEditAgentBtn'), stop: q('stopEditAgentBtn'), reset: q('resetEditAgentBtn'), accept: q('acceptEditResultBtn') };
  const follower = setFollower(ws);
  const preview = previewLayer(ws);
  const card = approvalCard(q('editAgentApproval'), preview);
  const actions = actionList(ws, q('editAgentActions'));
  const chart = new LineChart(q('editAgentChart'), {
    series: [{ key: 'hexagonalness', label: 'Hexagonalness', color: '#4caf50' }, { key: 'coverage', label: 'Coverage', color: '#2196f3', scale: 0.01, unit: '%' }],
    bestKey: 'hexagonalness', xMax: 30,
  });
  let run = null;          // {id, watcher, logOffset}
  let lastRunId = null;    // for Reset after the run
  let lastStatus = null;
  let points = [];
  let logLines = [];

  collapsibles(root, PREFIX, DEFAULTS);
  root.addEventListener('expand', () => chart.draw());
  loadProviders(q('editAgentProvider'), q('editAgentModel'), q('editAgentModelPricing'));

  const opts = () => {
    const o = { provider: q('editAgentProvider').value || undefined, approve_each_step: q('editAgentApprove').checked };
    const m = q('editAgentModel').value;
    if (m) o.model = m;
    return o;
  };

  function updateButtons() {
    const why = prerequisites(ws);
    const busy = !!run || chat.busy;
    btn.start.disabled = !!why || busy;
    btn.start.title = why;
    q('editAgentPrereq').textContent = why;
    btn.stop.disabled = !run;
    btn.reset.disabled = busy || !lastRunId;
    btn.accept.disabled = busy || !lastRunId;
    chat.setEnabled(!why && !run);
  }

  function setText(id, v) { q(id).textContent = v; }

  function renderStatus(st) {
    lastStatus = st;
    setText('editAgentState', st.state || '-');
    setText('editAgentPhase', (st.phase || '-').replace(/_/g, ' '));
    setText('editAgentIteration', `${st.iteration || 0}/${st.max_iterations || q('editAgentMaxIterations').value}`);
    const d = st.tubercle_delta || 0;
    setText('editAgentTubercleCount', `${st.tubercle_count || 0} (${d >= 0 ? '+' : ''}${d})`);
    setText('editAgentHexagonalness', fmt(st.hexagonalness || 0, 3));
    setText('editAgentCoverage', `${Math.round(st.coverage_percent || 0)}%`);
    setText('editAgentElapsed', fmtClock(st.elapsed_seconds));
    setText('editAgentPlateau', `${st.plateau_count || 0}/${st.plateau_threshold || q('editAgentPlateauThreshold').value}`);
    const c = st.costs || {};
    setText('editAgentCostModel', c.model ? `${c.model} (${c.provider || st.provider})` : (st.model || '-'));
    setText('editAgentCostInputTokens', fmtInt(c.input_tokens));
    setText('editAgentCostOutputTokens', fmtInt(c.output_tokens));
    setText('editAgentCostEstimate', fmtUsd(c.estimated_cost));
    setText('editAgentCostLastStep', fmtUsd(c.last_step_cost));
    if (st.last_prompt) q('editAgentPrompt').textContent = st.last_prompt.replace(/"(data|b64|base64)":"[A-Za-z0-9+/=]{200,}"/g, '"$1":"<base64 image>"');
    if (st.last_response) q('editAgentResponse').textContent = st.last_response;
    if (st.pending_approval && run) card.show(run.id, st.pending_approval); else card.hide();
    root.dataset.state = st.state || '';
  }

  async function pullLog(id) {
    const res = await api('GET', `api/agent/status/${id}/log?since=${run ? run.logOffset : 0}`);
    if (!res.ok) return;
    if (run && run.id === id) run.logOffset = res.data.offset;
    for (const line of res.data.lines) {
      logLines.push(line);
      const m = HEX_LINE.exec(line);
      if (m) {
        if (!points.length) points.push({ iteration: 0, hexagonalness: Number(m[1]), coverage: Number(m[3]) });
        points.push({ iteration: points.length, hexagonalness: Number(m[2]), coverage: Number(m[4]) });
      }
    }
    const box = q('editAgentActionLog');
    box.value = logLines.join('\n');
    box.scrollTop = box.scrollHeight;
    chart.setData(points, Number(lastStatus && lastStatus.max_iterations) || Number(q('editAgentMaxIterations').value) || 30);
  }

  function showTranscript(id) {
    const a = document.getElementById('editAgentTranscript');
    if (!a || !id) return;
    a.href = url(`api/agent/transcript/${id}`);
    a.hidden = false;
  }

  function attach(id) {
    showTranscript(id);
    run = { id, logOffset: 0, text: textStream(id, q('editAgentStream')) };
    lastRunId = id;
    points = [];
    logLines = [];
    follower.start();
    updateButtons();
    let pulling = false;
    run.watcher = watchRun(id, {
      onStatus: async (st) => {
        renderStatus(st);
        if (!pulling) { pulling = true; try { await pullLog(id); } finally { pulling = false; } }
        if (run && run.id === id) run.text.pull();
      },
      onEnd: async (st) => {
        renderStatus(st);
        await pullLog(id);
        if (run && run.id === id) await run.text.pull();
        card.hide();
        const f = finishText(st.finish_reason, st.error);
        const s = q('editAgentSummary');
        s.textContent = `${f.text} · ${st.tubercles_added || 0} added, ${st.tubercles_deleted || 0} deleted, ${st.tubercles_moved || 0} moved · hexagonalness ${fmt(st.initial_hexagonalness || 0, 3)} → ${fmt(st.hexagonalness || 0, 3)}`;
        s.className = 'agent-summary ' + f.cls;
        s.hidden = false;
        run = null;
        await follower.stop();
        updateButtons();
        actions.refresh();
        root.dataset.done = String(id);
      },
    });
  }

  btn.start.addEventListener('click', async () => {
    const why = prerequisites(ws);
    if (why) { toast(why, 'warning'); return; }
    if (store.set.dirty) toast('The set has unsaved changes; the agent works on it as it is (Reset undoes only the agent\'s steps).', 'warning', 5000);
    const body = {
      image_id: store.imageId, set_id: store.set.id, ...opts(),
      max_iterations: Number(q('editAgentMaxIterations').value) || 30,
      plateau_threshold: Number(q('editAgentPlateauThreshold').value) || 3,
      auto_connect: q('editAgentAutoConnect').checked,
      auto_connect_method: q('editAgentAutoConnectMethod').value,
      cleanup_boundary: q('editAgentCleanupBoundary').checked,
    };
    btn.start.disabled = true;
    const res = await api('POST', 'api/agent/edit/start', body);
    if (!res.ok) { toast('The agent could not start: ' + errorText(res), 'error', 6000); updateButtons(); return; }
    q('editAgentSummary').hidden = true;
    delete root.dataset.done;
    ws.log('edit_agent_ui_started', { run_id: res.data.run_id });
    attach(res.data.run_id);
  });

  btn.stop.addEventListener('click', async () => {
    if (!run) return;
    btn.stop.disabled = true;
    const res = await api('POST', `api/agent/edit/stop/${run.id}`);
    if (!res.ok) { toast('Stop: ' + errorText(res), 'error'); btn.stop.disabled = false; return; }
    toast(res.data.message || 'Agent stopped', 'info');
  });

  btn.reset.addEventListener('click', async () => {
    if (!lastRunId) return;
    if (!(await confirmDialog('Reset', `Undo every change agent run ${lastRunId} made to this set (back to the state before the run)?`, 'Reset', true))) return;
    const res = await api('POST', `api/agent/reset/${lastRunId}`);
    if (!res.ok) toast('Reset: ' + errorText(res), 'error', 6000);
    else toast(`Reset: ${res.data.undone_steps} change(s) undone`, 'success');
    await store.reload();
    actions.refresh();
  });

  btn.accept.addEventListener('click', async () => {
    await ws.saveSet();
    ws.log('edit_agent_accepted', { run_id: lastRunId });
    btn.accept.disabled = true;
  });

  q('copyEditPromptBtn').addEventListener('click', () => copyText(q('editAgentPrompt').textContent, 'Prompt'));
  q('copyEditResponseBtn').addEventListener('click', () => copyText(q('editAgentResponse').textContent, 'Response'));
  q('copyEditActionsBtn').addEventListener('click', () => copyText(q('editAgentActionLog').value, 'Actions'));
  q('clearEditActionsBtn').addEventListener('click', () => { logLines = []; q('editAgentActionLog').value = ''; });

  const chat = chatPanel(ws, q('editAgentChat'), {
    opts, card, follower,
    onRun: (id, on) => { if (!on) { actions.refresh(); } updateButtons(); },
  });

  // a run of this set still going (page reloaded): follow it again
  async function resume() {
    if (!store.set) return;
    const res = await api('GET', 'api/agent/list?limit=50');
    if (!res.ok) return;
    const mine = res.data.runs.filter(r => r.set_id === store.set.id && r.kind === 'edit');
    if (!mine.length) { lastRunId = null; updateButtons(); return; }
    if (['starting', 'running'].includes(mine[0].state) && !run) attach(mine[0].run_id);
    else { lastRunId = mine[0].run_id; showTranscript(lastRunId); updateButtons(); }
  }

  let setId = null;
  store.addEventListener('set', () => {
    updateButtons();
    if (store.set && store.set.id !== setId) { setId = store.set.id; chat.loadHistory(); actions.refresh(); resume(); }
  });
  store.addEventListener('image', updateButtons);
  store.addEventListener('data', updateButtons);
  updateButtons();

  return {
    shown(name) { if (name === 'agentic-edit') { chart.draw(); actions.refresh(); } },
    get running() { return run ? run.id : null; },
  };
}
