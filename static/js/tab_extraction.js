// tab_extraction.js - detection parameters (ranges as the original's
// form), built-in and personal profiles (server side), parameter undo,
// extraction, connections only, the "parameters changed" badge, and the
// optimiser (one server step per request; Auto loops until should_stop).

import { api, errorText } from './api.js';
import { $, el, confirmDialog, toast, fmt } from './dom.js';
import { followJob, onResume } from './job_follow.js';

const FIELDS = [
  { key: 'method', label: 'Method', type: 'select', options: [['log', 'LoG'], ['dog', 'DoG'], ['ellipse', 'Ellipse Fitting'], ['lattice', 'Lattice-aware'], ['auto', 'Automatic']], help: 'method' },
  { key: 'threshold', label: 'Threshold', type: 'range', min: 0.01, max: 0.5, step: 0.001, help: 'threshold' },
  { key: 'min_diameter_um', label: 'Min diameter (µm)', type: 'number', min: 0.5, max: 20, step: 0.5, help: 'diameters' },
  { key: 'max_diameter_um', label: 'Max diameter (µm)', type: 'number', min: 1, max: 50, step: 0.5, help: 'diameters' },
  { key: 'min_circularity', label: 'Circularity', type: 'range', min: 0, max: 1, step: 0.001, help: 'circularity' },
  { key: 'clahe_clip', label: 'CLAHE clip', type: 'range', min: 0.01, max: 0.2, step: 0.001, help: 'clahe' },
  { key: 'clahe_kernel', label: 'CLAHE kernel', type: 'number', min: 4, max: 32, step: 2, help: 'clahe' },
  { key: 'blur_sigma', label: 'Blur sigma', type: 'range', min: 0, max: 5, step: 0.001, help: 'blur' },
  { key: 'auto_prominence', label: 'Prominence (auto)', type: 'range', min: 0.05, max: 0.9, step: 0.01, help: 'auto-prominence' },
  { key: 'auto_smoothing', label: 'Smoothing (× pitch)', type: 'range', min: 0.05, max: 0.4, step: 0.01, help: 'auto-smoothing' },
  { key: 'neighbor_graph', label: 'Graph type', type: 'select', options: [['delaunay', 'Delaunay'], ['gabriel', 'Gabriel'], ['rng', 'RNG (recommended)']], help: 'graph' },
  { key: 'cull_long_edges', label: 'Cull long edges', type: 'checkbox', help: 'cull-long-edges' },
  { key: 'cull_factor', label: 'Cull factor (× mean length)', type: 'number', min: 1, max: 5, step: 0.1, help: 'cull-factor' },
];
const FALLBACK = { method: 'log', threshold: 0.05, min_diameter_um: 2, max_diameter_um: 10, min_circularity: 0.5, clahe_clip: 0.03, clahe_kernel: 8, blur_sigma: 1, auto_prominence: 0.3, auto_smoothing: 0.15, neighbor_graph: 'delaunay', cull_long_edges: true, cull_factor: 1.4 };
const OPT = [['threshold', 'Threshold', true], ['min_diameter_um', 'Min diameter', false], ['max_diameter_um', 'Max diameter', false], ['min_circularity', 'Circularity', true], ['clahe_clip', 'CLAHE clip', false], ['clahe_kernel', 'CLAHE kernel', false], ['blur_sigma', 'Blur', true], ['auto_prominence', 'Prominence', true], ['auto_smoothing', 'Smoothing', false]];

export function initExtraction(ws) {
  const store = ws.store;
  const inputs = {};
  let defaults = { ...FALLBACK };
  let profiles = [];
  const undoStack = [];
  let lastValues = null;
  const help = $('#tab-extraction .help').getAttribute('href');

  const box = $('#param-fields');
  for (const f of FIELDS) {
    let input, mirror = null;
    if (f.type === 'select') input = el('select', { id: 'p-' + f.key }, ...f.options.map(([v, t]) => el('option', { value: v }, t)));
    else if (f.type === 'checkbox') input = el('input', { type: 'checkbox', id: 'p-' + f.key });
    else if (f.type === 'range') {
      input = el('input', { type: 'range', id: 'p-' + f.key + '-range', min: f.min, max: f.max, step: f.step, 'aria-label': f.label });
      mirror = el('input', { type: 'number', id: 'p-' + f.key, min: f.min, max: f.max, step: f.step, className: 'num' });
      input.addEventListener('input', () => { mirror.value = input.value; });
      mirror.addEventListener('input', () => { input.value = mirror.value; });
    } else input = el('input', { type: 'number', id: 'p-' + f.key, min: f.min, max: f.max, step: f.step, className: 'num' });
    inputs[f.key] = { f, input, mirror };
    const range = f.min !== undefined ? el('span', { className: 'range-hint' }, `${f.min}–${f.max}`) : null;
    box.append(el('div', { className: 'param', dataset: { key: f.key } },
      el('label', { htmlFor: mirror ? mirror.id : input.id }, f.label),
      input, mirror, range,
      el('a', { href: `${help}#${f.help}`, target: '_blank', rel: 'noopener', className: 'help', title: 'Help' }, '?')));
  }

  function read() {
    const p = {};
    for (const [k, { f, input, mirror }] of Object.entries(inputs)) {
      if (f.type === 'checkbox') p[k] = input.checked;
      else if (f.type === 'select') p[k] = input.value;
      else {
        const v = Number((mirror || input).value);
        // 0 is a value, not "missing" (the original's parseFloat || default bug)
        p[k] = Number.isFinite(v) && (mirror || input).value !== '' ? v : defaults[k];
      }
    }
    return p;
  }

  // Which parameters the chosen method uses (GET /api/parameters, one
  // table on the server): the others are greyed with the reason, and the
  // optimiser offers only the used ones.
  let usage = null; // name -> { used_by_method: [...], not_used_because: {method: reason} }
  function renderUsage() {
    if (!usage) return;
    const m = inputs.method.input.value;
    for (const [k, { input, mirror }] of Object.entries(inputs)) {
      const u = usage[k];
      if (!u) continue;
      const used = u.used_by_method.includes(m);
      const div = input.closest('.param');
      div.classList.toggle('unused', !used);
      const why = used ? '' : `Not used by ${m}: ${u.not_used_because[m] || ''}`;
      div.title = why;
      input.disabled = !used;
      if (mirror) mirror.disabled = !used;
      let note = div.querySelector('.unused-why');
      if (!used && !note) div.append(note = el('span', { className: 'unused-why' }));
      if (note) { note.textContent = used ? '' : `not used by ${m}`; note.hidden = used; }
    }
    for (const box of document.querySelectorAll('#opt-params input')) {
      const u = usage[box.value];
      const used = !u || u.used_by_method.includes(m);
      box.disabled = !used;
      box.closest('label').classList.toggle('unused', !used);
      box.closest('label').title = used ? '' : `Not used by ${m}: ${u.not_used_because[m] || ''}`;
    }
  }
  api('GET', 'api/parameters').then((res) => {
    if (!res.ok) return;
    usage = Object.fromEntries(res.data.parameters.map(p => [p.name, p]));
    renderUsage();
  });
  inputs.method.input.addEventListener('change', renderUsage);

  function write(p) {
    for (const [k, { f, input, mirror }] of Object.entries(inputs)) {
      if (p[k] === undefined || p[k] === null) continue;
      if (f.type === 'checkbox') input.checked = !!p[k];
      else { input.value = p[k]; if (mirror) mirror.value = p[k]; }
    }
    inputs.cull_factor.input.closest('.param').hidden = !inputs.cull_long_edges.input.checked;
    lastValues = read();
    renderChanged();
    renderUsage();
  }

  function same(a, b) {
    if (!a || !b) return false;
    return FIELDS.every(({ key, type }) => type === 'select' || type === 'checkbox' ? a[key] === b[key] : Math.abs(Number(a[key]) - Number(b[key])) < 1e-9);
  }

  function renderChanged() {
    const sp = store.set && store.set.parameters;
    $('#params-changed').hidden = !sp || same(read(), sp);
    $('#params-undo').disabled = !undoStack.length;
    $('#params-undo').title = `${undoStack.length} step(s) to undo`;
  }

  box.addEventListener('change', () => {
    if (lastValues) { undoStack.push(lastValues); if (undoStack.length > 20) undoStack.shift(); }
    inputs.cull_factor.input.closest('.param').hidden = !inputs.cull_long_edges.input.checked;
    lastValues = read();
    renderChanged();
  });
  $('#params-undo').addEventListener('click', () => { const p = undoStack.pop(); if (p) write(p); });
  $('#params-reset').addEventListener('click', () => { undoStack.push(read()); write(defaults); });
  ws.applyParams = (p) => { undoStack.push(read()); write(p); renderChanged(); };

  // ---- profiles ----
  async function loadProfiles() {
    const res = await api('GET', 'api/profiles');
    if (!res.ok) return;
    profiles = res.data.profiles;
    const def = profiles.find(p => p.builtin && p.name === 'default');
    if (def) for (const k of Object.keys(FALLBACK)) if (def[k] !== undefined) defaults[k] = def[k];
    const sel = $('#profile-select');
    sel.replaceChildren(el('option', { value: '' }, '(choose)'),
      el('optgroup', { label: 'Built-in profiles' }, ...profiles.filter(p => p.builtin).map(p => el('option', { value: 'b:' + p.name }, p.description ? `${p.name} - ${p.description}` : p.name))),
      el('optgroup', { label: 'Your profiles' }, ...profiles.filter(p => !p.builtin).map(p => el('option', { value: 'u:' + p.id }, p.name))));
    $('#profile-mine').replaceChildren(...profiles.filter(p => !p.builtin).map(p => el('li', null, p.name, ' ',
      el('button', { type: 'button', className: 'small danger', title: 'Delete profile', onclick: () => deleteProfile(p) }, '✕'))));
  }
  function profileParams(p) {
    const src = p.parameters || p;
    const out = {};
    for (const k of Object.keys(FALLBACK)) if (src[k] !== undefined) out[k] = src[k];
    return out;
  }
  $('#profile-apply').addEventListener('click', () => {
    const v = $('#profile-select').value;
    const p = v.startsWith('b:') ? profiles.find(x => x.builtin && 'b:' + x.name === v) : profiles.find(x => !x.builtin && 'u:' + x.id === v);
    if (!p) { toast('Choose a profile first', 'warning'); return; }
    ws.applyParams(profileParams(p));
    if (p.calibration_um_per_px) $('#cal-direct').value = p.calibration_um_per_px;
    toast(`Profile "${p.name}" applied to the form`, 'success');
  });
  $('#profile-save').addEventListener('click', async () => {
    const name = $('#profile-name').value.trim();
    if (!name) { toast('Give the profile a name', 'warning'); return; }
    const mine = profiles.find(p => !p.builtin && p.name.toLowerCase() === name.toLowerCase());
    if (mine && !(await confirmDialog('Overwrite profile', `Replace your profile "${mine.name}"?`, 'Overwrite'))) return;
    const res = await api('POST', 'api/profiles', { name, parameters: read(), overwrite: !!mine });
    if (!res.ok) { toast(errorText(res), 'error'); return; }
    $('#profile-name').value = '';
    toast(`Profile "${name}" saved`, 'success');
    loadProfiles();
  });
  async function deleteProfile(p) {
    if (!(await confirmDialog('Delete profile', `Delete your profile "${p.name}"?`, 'Delete', true))) return;
    const res = await api('DELETE', `api/profiles/${p.id}`);
    if (!res.ok) { toast(errorText(res), 'error'); return; }
    loadProfiles();
  }

  // ---- running ----
  const btnAll = $('#extract-all'), btnConn = $('#extract-connections');
  // What measured the extracted set (its measurement version, the server's
  // rule when it was extracted) and how many tubercles kept their centre
  // without a measured base (issue 13: said, not hidden in the means).
  const rule = () => (store.set && store.set.measurement ? `, measured with ${store.set.measurement}` : '');
  const unmeasured = () => {
    const n = [...store.tubercles.values()].filter(t => t.radius_px == null).length;
    return n ? ` (${n} without a measured base)` : '';
  };
  // A large image is extracted by a background job: follow it to its end
  // (also one found running when the page opened: job_follow.js).
  async function followExtraction(started) {
    const job = await followJob(started, { box: $('#extract-job'), bar: $('#extract-job-bar'), text: $('#extract-job-text'),
      cancel: $('#extract-job-cancel'), label: 'Background extraction' });
    if (!job) return;
    if (job.state === 'done') {
      await store.poll();
      toast(`Extracted ${job.result.n_tubercles} tubercles${unmeasured()} and ${job.result.n_edges} connections${rule()}`, 'success');
    } else if (job.state === 'cancelled') {
      toast('Extraction cancelled: the set is unchanged', 'info');
    } else {
      toast('Extraction failed: ' + (job.error || job.state), 'error', 10000);
    }
  }

  // Extract stays disabled while an extraction of this page runs.
  async function extracting(work) {
    btnAll.disabled = true;
    btnAll.textContent = 'Extracting…';
    try {
      await work();
    } finally {
      btnAll.disabled = false;
      btnAll.textContent = 'Extract Tubercles + Connections';
      renderChanged();
    }
  }
  btnAll.addEventListener('click', () => extracting(async () => {
    const res = await store.change('POST', 'extract', { parameters: read() }, 'extraction');
    if (res.status === 202) await followExtraction(res.data.job);
    else if (res.ok) toast(`Extracted ${store.tubercles.size} tubercles${unmeasured()} and ${store.edges.length} connections${rule()}`, 'success');
  }));
  onResume('extract', (job) => extracting(() => followExtraction(job)));
  btnConn.addEventListener('click', async () => {
    if (store.tubercles.size < 2) { toast('At least 2 tubercles are needed', 'warning'); return; }
    const p = read();
    const res = await store.change('POST', 'connections', { graph_type: p.neighbor_graph, cull_long_edges: p.cull_long_edges, cull_factor: p.cull_factor }, 'connections');
    if (res.ok) toast(`${store.edges.length} connections`, 'success');
  });

  // ---- optimiser ----
  $('#opt-params').replaceChildren(...OPT.map(([k, label, on]) => el('label', { className: 'check' }, el('input', { type: 'checkbox', value: k, checked: on }), label)));
  renderUsage();
  let stop = false, running = false;
  async function step(iteration) {
    const enabled = [...document.querySelectorAll('#opt-params input:checked:not(:disabled)')].map(i => i.value);
    if (!enabled.length) { toast('Choose at least one parameter to optimise', 'warning'); return null; }
    $('#opt-status').textContent = `Iteration ${iteration}: running…`;
    const res = await store.change('POST', 'optimize-step', {
      params: read(), enabled_params: enabled, iteration,
      max_iterations: Number($('#opt-max').value), delta_threshold: Number($('#opt-delta').value), target_score: Number($('#opt-target').value),
    }, 'optimiser step');
    if (!res.ok) { $('#opt-status').textContent = 'Stopped: ' + errorText(res); return null; }
    const d = res.data;
    write(d.new_params);
    $('#opt-status').textContent = `Iteration ${d.iteration}/${$('#opt-max').value}: hexagonalness ${fmt(d.hexagonalness, 3)} (Δ ${d.delta >= 0 ? '+' : ''}${fmt(d.delta, 3)})${d.should_stop ? ', stopped: ' + d.stop_reason.replace('_', ' ') : ''}`;
    return d;
  }
  function setRunning(r) {
    running = r;
    $('#opt-step').disabled = r;
    $('#opt-auto').disabled = r;
    $('#opt-stop').disabled = !r;
    btnAll.disabled = r;
  }
  let iter = 1;
  $('#opt-step').addEventListener('click', async () => { setRunning(true); try { if (await step(iter)) iter++; } finally { setRunning(false); } });
  $('#opt-auto').addEventListener('click', async () => {
    stop = false;
    setRunning(true);
    let best = -1;
    try {
      for (iter = 1; !stop; iter++) {
        const d = await step(iter);
        if (!d) break;
        best = Math.max(best, d.hexagonalness);
        if (d.should_stop) break;
      }
      if (stop) $('#opt-status').textContent += ' (stopped by you)';
      ws.log('optimize_auto_finished', { iterations: iter, final_score: best });
    } finally {
      setRunning(false);
      iter = 1;
    }
  });
  $('#opt-stop').addEventListener('click', () => { stop = true; $('#opt-status').textContent += ' — stopping after this step'; });

  // A set's stored parameters fill the form when it is opened; the rule
  // an extraction measures with is the server's (every set says it).
  let shownSet = null;
  store.addEventListener('set', () => {
    if (store.set && store.set.current_measurement) $('#extract-rule-name').textContent = store.set.current_measurement;
    if (store.set && store.set.id !== shownSet) {
      shownSet = store.set.id;
      if (store.set.parameters) write(store.set.parameters);
    }
    renderChanged();
  });
  write(defaults);
  loadProfiles().then(() => { if (!(store.set && store.set.parameters)) write(defaults); });
  return { current: read, renderChanged, running: () => running };
}
