// tab_settings.js - the Settings tab built from the server's settings
// (GET/PUT /api/settings: stored per user, so they follow the user to any
// browser), the theme applied as CSS variables, the hexagonalness weights
// with their sum, normalise and reset, the tools an agent may run without
// asking, and the About table.

import { api, errorText } from './api.js';
import { $, el, toast, confirmDialog } from './dom.js';

const GROUPS = [
  ['User', [['display_name', 'Your name', 'text']]],
  ['Navigation', [['scroll_zoom', 'Scroll wheel zooms', 'bool']]],
  ['Calibration', [['auto_calibrate_data_bar', 'Calibrate new uploads from their SEM data bar (when the reading is confident)', 'bool']]],
  ['Overlay', [
    ['show_tubercle_ids', 'Show tubercle IDs by default', 'bool'], ['id_text_size', 'ID text size (px)', 'int', 8, 24, 1],
    ['tubercle_color', 'Tubercle colour', 'color'], ['connection_color', 'Connection colour', 'color'],
    ['selected_color', 'Selection colour', 'color'], ['manual_color', 'Manual tubercles (by source)', 'color'],
    ['boundary_color', 'Boundary colour', 'color'], ['grid_color', 'Grid colour', 'color'],
    ['grid_opacity', 'Grid opacity', 'num', 0.1, 1, 0.05], ['tubercle_line_width', 'Tubercle line width', 'num', 0.5, 10, 0.5],
    ['connection_line_width', 'Connection line width', 'num', 0.5, 10, 0.5],
    ['connection_endpoints', 'Connections end at', 'enum', ['center', 'edge']],
    ['tubercle_color_mode', 'Tubercle colour mode', 'enum', ['uniform', 'source', 'boundary']],
    ['show_scale_bar', 'Show scale bar by default', 'bool'],
    ['scale_bar_position', 'Scale bar position', 'enum', ['top-left', 'top-center', 'top-right', 'middle-left', 'middle-right', 'bottom-left', 'bottom-center', 'bottom-right']],
  ]],
  ['Theme', [
    ['theme', 'Panel theme', 'enum', ['dark', 'light', 'custom']],
    ['custom_panel_bg', 'Panel background', 'color'], ['custom_chart_bg', 'Chart background', 'color'],
    ['custom_text_primary', 'Primary text', 'color'], ['custom_text_muted', 'Muted text', 'color'], ['custom_text_dim', 'Dim text', 'color'],
    ['custom_border', 'Borders', 'color'], ['custom_grid_lines', 'Grid lines', 'color'], ['custom_set_name', 'Set name', 'color'], ['custom_hex_value', 'Hex value', 'color'],
  ]],
  ['Agents', [
    ['agent_no_approval_tools', 'Tools that run without asking when “Approve each step” is on (comma-separated; get_* = every read-only get_ tool, empty = ask for every tool)', 'names'],
  ]],
  ['Hexagonalness weights', [
    ['hex_spacing_weight', 'Spacing uniformity', 'num', 0, 1, 0.05], ['hex_degree_weight', 'Degree', 'num', 0, 1, 0.05], ['hex_edge_ratio_weight', 'Edge ratio', 'num', 0, 1, 0.05],
  ]],
];
const THEMES = {
  dark: ['#1e293b', '#1a1a2e', '#e2e8f0', '#94a3b8', '#64748b', '#334155', '#333344', '#93c5fd', '#fbbf24'],
  light: ['#f1f5f9', '#e2e8f0', '#1e293b', '#475569', '#64748b', '#cbd5e1', '#94a3b8', '#1d4ed8', '#b45309'],
};
const VARS = ['--panel-bg', '--chart-bg', '--panel-text', '--panel-muted', '--panel-dim', '--panel-border', '--panel-grid', '--set-name-color', '--hex-color'];
const CUSTOM = ['custom_panel_bg', 'custom_chart_bg', 'custom_text_primary', 'custom_text_muted', 'custom_text_dim', 'custom_border', 'custom_grid_lines', 'custom_set_name', 'custom_hex_value'];

export function applyTheme(s) {
  const vals = s.theme === 'custom' ? CUSTOM.map(k => s[k]) : THEMES[s.theme] || THEMES.dark;
  const st = document.documentElement.style;
  VARS.forEach((v, i) => { if (vals[i]) st.setProperty(v, vals[i]); });
  document.documentElement.dataset.theme = s.theme || 'dark';
}

export function initSettings(ws) {
  const form = $('#settings-form');
  const inputs = {};
  for (const [title, fields] of GROUPS) {
    const fs = el('fieldset', null, el('legend', null, title));
    for (const [key, label, type, a, b, c] of fields) {
      let input;
      if (type === 'bool') input = el('input', { type: 'checkbox' });
      else if (type === 'color') input = el('input', { type: 'color' });
      else if (type === 'enum') input = el('select', null, ...a.map(v => el('option', { value: v }, v)));
      else if (type === 'text') input = el('input', { type: 'text', maxLength: 128 });
      else if (type === 'names') input = el('input', { type: 'text', maxLength: 255, spellcheck: false, autocomplete: 'off' });
      else input = el('input', { type: 'number', min: a, max: b, step: c });
      input.id = 's-' + key;
      input.name = key;
      input.dataset.type = type;
      inputs[key] = input;
      fs.append(el('label', { className: type === 'bool' ? 'check' : 'setting' }, type === 'bool' ? input : label, type === 'bool' ? ' ' + label : input));
    }
    form.append(fs);
  }
  // back to the server's list (the configuration's agent_no_approval_tools)
  inputs.agent_no_approval_tools.closest('fieldset').append(
    el('button', { type: 'button', id: 'agent-tools-reset' }, 'Use the server’s list'));

  function render() {
    const s = ws.settings;
    for (const [k, i] of Object.entries(inputs)) {
      if (s[k] === undefined) continue;
      if (i.type === 'checkbox') i.checked = !!s[k];
      else i.value = s[k];
    }
    const custom = s.theme === 'custom';
    for (const k of CUSTOM) inputs[k].closest('label').hidden = !custom;
    const sum = s.hex_spacing_weight + s.hex_degree_weight + s.hex_edge_ratio_weight;
    $('#hex-sum').textContent = sum.toFixed(2);
    $('#hex-sum').classList.toggle('warn-text', Math.abs(sum - 1) > 0.01);
    applyTheme(s);
  }

  async function save(patch) {
    const ok = await ws.saveSettings(patch);
    render();
    if (ok) {
      $('#settings-status').textContent = 'Saved.';
      if (Object.keys(patch).some(k => k.startsWith('hex_'))) ws.store.reload();
      if ('display_name' in patch) { const n = document.querySelector('.user-name'); if (n) n.textContent = ws.settings.display_name; }
    }
  }

  form.addEventListener('change', (e) => {
    const i = e.target;
    if (!i.name) return;
    let v;
    if (i.type === 'checkbox') v = i.checked;
    else if (i.dataset.type === 'int') v = parseInt(i.value, 10);
    else if (i.dataset.type === 'num') v = Number(i.value);
    else v = i.value;
    if ((i.dataset.type === 'num' || i.dataset.type === 'int') && !Number.isFinite(v)) { toast('Enter a number', 'warning'); return; }
    save({ [i.name]: v });
  });
  form.addEventListener('submit', (e) => e.preventDefault());

  $('#hex-normalize').addEventListener('click', () => {
    const s = ws.settings;
    const sum = s.hex_spacing_weight + s.hex_degree_weight + s.hex_edge_ratio_weight;
    if (!(sum > 0)) return;
    const r = (x) => Math.round(x / sum * 1e4) / 1e4;
    save({ hex_spacing_weight: r(s.hex_spacing_weight), hex_degree_weight: r(s.hex_degree_weight), hex_edge_ratio_weight: r(s.hex_edge_ratio_weight) });
  });
  $('#agent-tools-reset').addEventListener('click', () => save({ agent_no_approval_tools: null }));
  $('#hex-reset').addEventListener('click', () => save({ hex_spacing_weight: null, hex_degree_weight: null, hex_edge_ratio_weight: null }));
  $('#theme-reset').addEventListener('click', () => save(Object.fromEntries(['theme', ...CUSTOM].map(k => [k, null]))));
  $('#settings-reset').addEventListener('click', async () => {
    if (!(await confirmDialog('Reset settings', 'Reset all your settings to the defaults?', 'Reset', true))) return;
    const res = await api('POST', 'api/settings/reset');
    if (!res.ok) { toast(errorText(res), 'error'); return; }
    ws.settings = res.data.settings;
    render();
    ws.render();
    ws.store.reload();
    toast('Settings reset', 'success');
  });

  // About: the /about page's table, read as data (DOMParser runs no script).
  async function loadAbout() {
    try {
      const r = await fetch(document.body.dataset.base + 'about', { credentials: 'same-origin' });
      const doc = new DOMParser().parseFromString(await r.text(), 'text/html');
      const rows = [...doc.querySelectorAll('#versions tr')].map(tr => el('tr', null, el('th', null, tr.querySelector('th').textContent), el('td', null, tr.querySelector('td').textContent)));
      $('#about-table').replaceChildren(...rows);
    } catch {
      $('#about-table').replaceChildren(el('tr', null, el('td', null, 'The version list could not be loaded.')));
    }
  }

  render();
  let aboutLoaded = false;
  return {
    render,
    shown(name) {
      if (name === 'settings') render();
      if (name === 'about' && !aboutLoaded) { aboutLoaded = true; loadAbout(); }
    },
  };
}
