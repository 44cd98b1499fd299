// tab_image.js - the Image tab (rotate, crop by dragging, autocrop, and
// the image's own history of those steps with Undo and Back to the
// original) and the Calibration tab (current value and method, estimate,
// scale bar by numbers or by two clicks on the image, direct input, file
// metadata). Transforms are steps of the image, not of a set: the sets'
// tubercles are kept as they are and shown through the steps (a crop
// hides what lies outside, nothing is deleted); the page then reloads the
// image and the open set.

import { api, errorText } from './api.js';
import { $, confirmDialog, el, fmt, modal, toast } from './dom.js';
import { initScaleRegion } from './scale_region.js';
import { onResume } from './job_follow.js';

const METHOD_BADGE = { estimate: 'Estimated', direct: 'Manual', scale_bar: 'Manual', manual: 'Manual', metadata: 'From file', measure: 'Measured', data_bar: 'Data bar' };

function relTime(iso) {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return '';
  const s = (Date.now() - t) / 1000;
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return new Date(t).toLocaleDateString();
}

export function initImageTabs(ws) {
  const store = ws.store;
  let cropRect = null;

  if (!ws.canManage) {
    $('#image-manage-note').hidden = false;
    for (const id of ['rotate-left', 'rotate-right', 'crop-start', 'autocrop', 'cal-estimate', 'cal-bar-apply', 'cal-direct-apply', 'cal-use-suggested', 'cal-use-databar', 'cal-databar-read', 'cal-measure'])
      $('#' + id).disabled = true;
  }

  async function afterImageChange(label) {
    await ws.reloadImage();
    ws.viewer.fit();
    $('#image-size').textContent = `${store.width} × ${store.height}`;
    renderInfo();
    await refreshSteps();
    if (ws.tabs.data) ws.tabs.data.refreshHistory();
    toast(`${label}: done`, 'success');
  }

  // A large image's transform is a background job (202): follow it with a
  // progress bar, then show the image as it is now. true when it is done.
  let followingId = null; // the job the box shows: never followed twice
  async function followJob(job, label) {
    const box = $('#image-job'), bar = $('#image-job-bar'), text = $('#image-job-text'), cancel = $('#image-job-cancel');
    followingId = job.id;
    box.hidden = false;
    const onCancel = () => api('POST', `api/jobs/${job.id}/cancel`);
    cancel.addEventListener('click', onCancel);
    // the poller would see the new revision first and reload on its own
    ws.imageChanging = true;
    try {
      for (;;) {
        bar.value = job.progress || 0;
        text.textContent = `${label} (large image, in the background): ${job.state}${job.stage ? ' (' + job.stage + ')' : ''}`;
        if (!['queued', 'starting', 'running'].includes(job.state)) break;
        await new Promise(r => setTimeout(r, 400));
        const res = await api('GET', `api/jobs/${job.id}`);
        if (!res.ok) { toast(errorText(res), 'error'); return false; }
        job = res.data.job;
      }
    } finally {
      cancel.removeEventListener('click', onCancel);
      box.hidden = true;
      ws.imageChanging = false;
      followingId = null;
    }
    if (job.state === 'done') return true;
    if (job.state === 'cancelled') toast(`${label} cancelled: the image is unchanged`, 'info');
    else toast(`${label} failed: ${job.error || job.state}`, 'error', 8000);
    return false;
  }

  // A step of a large image started before a reload or in another tab: the
  // same progress bar, then the image as it is now.
  const STEP_LABELS = { rotate_left: 'Rotate left', rotate_right: 'Rotate right', crop: 'Crop', autocrop: 'Autocrop' };
  onResume('transform', async (job) => {
    if (job.id === followingId) return;
    const label = job.step === 'undo' ? (job.keep === 0 ? 'Back to the original' : 'Undo') : (STEP_LABELS[job.step] || 'Image step');
    if (await followJob(job, label)) await afterImageChange(label);
  });

  // An answer to a transform or an undo: done at once (200), or a job (202).
  async function finishChange(res, label) {
    if (!res.ok) { toast(`${label} failed: ${errorText(res)}`, 'error', 6000); return false; }
    if (res.status === 202 && !(await followJob(res.data.job, label))) return false;
    await afterImageChange(label);
    return true;
  }

  async function transform(path, body, label) {
    const res = await api('POST', `api/images/${store.imageId}/${path}`, { ...body, revision: store.image.revision });
    return finishChange(res, label);
  }

  // What a crop does, said before it is done: the open set's tubercles
  // outside the rectangle are hidden (kept, and shown again when the crop is
  // undone); every set of the image is cropped alike; no set becomes unsaved.
  async function confirmCrop(rect, label) {
    const all = [...store.tubercles.values()];
    const outside = rect ? all.filter(t => t.centroid_x < rect.x || t.centroid_y < rect.y || t.centroid_x >= rect.x + rect.w || t.centroid_y >= rect.y + rect.h).length : null;
    const what = rect ? `Keep ${rect.w} × ${rect.h} px from (${rect.x}, ${rect.y}) of the ${store.width} × ${store.height} px image.`
      : 'Crop to the scale region (without paper margins, black surroundings and data bar); where it is the whole image, cut away flat rows and columns at the border (plus 5 px).';
    const hidden = outside === null
      ? 'Tubercles outside what is kept are hidden while the crop stands, not deleted.'
      : outside === 0 ? `All ${all.length} tubercles of this set lie inside: none is hidden.`
        : `${outside} of the ${all.length} tubercles of this set ${outside === 1 ? 'lies' : 'lie'} outside it: hidden while the crop stands, not deleted.`;
    const body = el('div', null,
      el('p', null, what),
      el('p', null, hidden + ' Every set of this image is cropped alike; no set becomes unsaved and their undo steps are kept.'),
      el('p', null, 'Undo in the Image history (this tab) brings back the full image and every hidden tubercle exactly; edits made meanwhile stay.'));
    const v = await modal({ title: label, body, buttons: [{ text: 'Cancel', value: false }, { text: label, value: true, primary: true, id: 'crop-confirm' }] });
    return v === true;
  }

  // ---- the image's history of steps ----
  async function refreshSteps() {
    const res = await api('GET', `api/images/${store.imageId}/transforms`);
    const list = $('#image-steps');
    if (!res.ok) { list.replaceChildren(); return; }
    const steps = res.data.transforms;
    list.replaceChildren(...steps.slice().reverse().map(s => el('li', { className: s.undoable ? '' : 'muted', title: s.timestamp || '' },
      el('b', null, s.label), ' ', s.user ? `by ${s.user}` : '', ' ', el('span', { className: 'muted' }, relTime(s.timestamp)),
      s.undoable ? null : el('span', { className: 'muted' }, ' (made before steps could be undone)'))));
    const undoable = steps.filter(s => s.undoable).length;
    $('#image-steps-empty').hidden = steps.length > 0;
    $('#image-undo').disabled = !ws.canManage || !undoable;
    $('#image-reset').disabled = !ws.canManage || !undoable;
    const last = steps.length ? steps[steps.length - 1] : null;
    $('#image-undo').title = last && last.undoable ? `Undo ${last.label}` : 'Nothing to undo';
  }

  $('#image-undo').addEventListener('click', async () => {
    const res = await api('POST', `api/images/${store.imageId}/transforms/undo`, { revision: store.image.revision });
    await finishChange(res, 'Undo');
  });
  $('#image-reset').addEventListener('click', async () => {
    if (!(await confirmDialog('Back to the original', 'Undo every rotation and crop of this image? The sets keep their tubercles and edits; those a crop hid are shown again.', 'Back to the original'))) return;
    const res = await api('POST', `api/images/${store.imageId}/transforms/reset`, { revision: store.image.revision });
    await finishChange(res, 'Back to the original');
  });

  function renderInfo() {
    const im = store.image;
    if (!im) return;
    $('#image-info').textContent = `${im.width} × ${im.height} px, ${im.format}, rotation ${im.rotation}°, owner ${im.owner_login}, ${im.visibility}`;
    renderCalibration();
  }

  $('#rotate-left').addEventListener('click', () => transform('rotate', { direction: 'left' }, 'Rotate left'));
  $('#rotate-right').addEventListener('click', () => transform('rotate', { direction: 'right' }, 'Rotate right'));
  $('#autocrop').addEventListener('click', async () => {
    if (await confirmCrop(null, 'Autocrop')) await transform('autocrop', {}, 'Autocrop');
  });
  $('#crop-start').addEventListener('click', () => { ws.editor.setMode('crop'); });
  $('#crop-cancel').addEventListener('click', () => { ws.editor.setMode(null); });
  $('#crop-apply').addEventListener('click', async () => {
    if (!cropRect) return;
    const x = Math.max(0, Math.round(cropRect.x0)), y = Math.max(0, Math.round(cropRect.y0));
    const w = Math.min(store.width, Math.round(cropRect.x1)) - x, h = Math.min(store.height, Math.round(cropRect.y1)) - y;
    ws.editor.setMode(null);
    if (!(await confirmCrop({ x, y, w, h }, 'Crop'))) return;
    await transform('crop', { x, y, width: w, height: h }, 'Crop');
  });
  ws.cropRectChanged = (r) => {
    const w = r.x1 - r.x0, h = r.y1 - r.y0;
    if (w < 10 || h < 10) {
      cropRect = null;
      store.temp.rect = null;
      $('#crop-status').textContent = 'The selection must be at least 10 × 10 px: drag again.';
      $('#crop-apply').disabled = true;
    } else {
      cropRect = r;
      $('#crop-status').textContent = `Keep ${Math.round(w)} × ${Math.round(h)} px from (${Math.round(r.x0)}, ${Math.round(r.y0)}). Apply Crop or Esc.`;
      $('#crop-apply').disabled = false;
    }
    ws.viewer.request();
  };
  ws.modeListeners.push((mode, prev) => {
    if (mode === 'crop') {
      $('#crop-cancel').disabled = false;
      $('#crop-status').textContent = 'Drag a rectangle on the image.';
    } else if (prev === 'crop') {
      cropRect = null;
      $('#crop-apply').disabled = true;
      $('#crop-cancel').disabled = true;
      $('#crop-status').textContent = 'Drag a rectangle on the image after pressing Start Crop.';
    }
    if (prev === 'measure') $('#cal-measure-status').textContent = 'Click the two ends of the scale bar on the image.';
  });

  // ---- calibration ----
  async function setCalibration(body, label) {
    const res = await api('POST', `api/images/${store.imageId}/calibration`, body);
    if (!res.ok) { toast(`Calibration refused: ${errorText(res)}`, 'error', 6000); return; }
    await store.loadImage();
    await store.reload();
    renderInfo();
    ws.render();
    toast(`Calibration set: ${fmt(store.umPerPx, 4)} µm/px (${label})`, 'success');
    $('#cal-measure-status').textContent = `Applied: ${fmt(store.umPerPx, 4)} µm/px (${label}).`;
  }

  function renderCalibration() {
    const c = store.image && store.image.calibration;
    $('#cal-value').textContent = c ? `${c.um_per_px.toFixed(4)} µm/pixel` : 'Not set';
    const badge = $('#cal-method');
    badge.textContent = c ? (METHOD_BADGE[c.method] || c.method) : 'Not Set';
    badge.dataset.method = c ? c.method : 'none';
    const sug = store.image && store.image.suggested_calibration;
    $('#cal-suggested').hidden = !sug;
    if (sug) {
      $('#cal-suggested-value').textContent = `${sug.um_per_px.toFixed(4)} µm/pixel`;
      $('#cal-suggested-source').textContent = sug.source || 'file metadata';
    }
    if (ws.tabs.data) ws.tabs.data.renderCalibration();
    loadDataBar();
  }

  // ---- the SEM data bar's suggestion (read after the upload, in the background) ----
  const FLAG_TEXT = {
    disagrees_with_metadata: 'It disagrees with the file metadata by more than 2 %.',
    pitch_out_of_range: 'The lattice pitch it implies lies outside the published 4–15 µm.',
    magnification_disagrees: 'The magnification printed in the bar implies another pixel size (more than 10 % off).',
  };
  let dataBar = null;
  let dataBarFor = null;
  let dataBarTimer = null;
  let refreshedFor = null;
  let onCalibrationTab = false;
  function highlightDataBar() {
    const show = onCalibrationTab && dataBar && dataBar.found && dataBar.on_current_image;
    const had = !!store.temp.databar;
    store.temp.databar = show ? { rect: dataBar.rect, line: dataBar.line } : null;
    if (show || had) ws.render();
  }
  // The reader runs after the upload, and may first wait up to 10 min for a
  // free slot (cgi/main_databar.c): look again while it is pending, less
  // often as it lasts, one look scheduled at a time (about 25 min in all).
  function lookAgain(id, again) {
    clearTimeout(dataBarTimer);
    if (again < 300) dataBarTimer = setTimeout(() => { if (store.imageId === id) loadDataBar(again + 1); }, Math.min(1000 + 250 * again, 5000));
  }
  async function loadDataBar(again = 0) {
    const id = store.imageId;
    if (!id) return;
    const res = await api('GET', `api/images/${id}/calibration`);
    if (store.imageId !== id) return;
    if (!res.ok) {
      // a passing failure (no answer, busy) while following a reading: look again
      if (again > 0 && (res.status === 0 || res.status === 429 || res.status >= 500)) lookAgain(id, again);
      return;
    }
    const j = res.data;
    const mine = store.image && store.image.calibration;
    const key = `${id}:${j.calibration && j.calibration.um_per_px}`;
    if ((j.calibration && j.calibration.um_per_px) !== (mine && mine.um_per_px) && refreshedFor !== key) {
      refreshedFor = key;
      // calibrated meanwhile: by the upload setting (once the bar was read) or elsewhere
      await store.loadImage();
      await store.reload();
      renderInfo();
      ws.render();
      if (j.calibration && j.calibration.method === 'data_bar') toast(`Calibration set from the SEM data bar: ${fmt(j.calibration.um_per_px, 4)} µm/px`, 'success');
      renderCalibration();
      return;
    }
    dataBar = j.data_bar;
    dataBarFor = id;
    const sug = (j.suggested || []).find(x => x.method === 'data_bar');
    const status = $('#cal-databar-status');
    $('#cal-databar').hidden = !sug;
    status.hidden = !!sug || dataBar.state === 'none';
    // images uploaded before data bars were read, or a failed reading: read it on request
    $('#cal-databar-read').hidden = !(dataBar.state === 'none' || dataBar.state === 'failed');
    clearTimeout(dataBarTimer);
    if (dataBar.state === 'pending') {
      status.textContent = 'Reading the SEM data bar…';
      lookAgain(id, again);
    } else if (dataBar.state === 'failed') {
      status.textContent = `The data bar could not be read: ${dataBar.error}`;
    } else if (!dataBar.found) {
      status.textContent = 'No SEM data bar in this image.';
    } else if (!sug) {
      status.textContent = `The image has a data bar, but no calibration from it: ${dataBar.reason}.`;
    }
    if (sug) {
      $('#cal-databar-value').textContent = `${sug.um_per_px.toFixed(4)} µm/pixel`;
      $('#cal-databar-source').textContent = sug.source;
      $('#cal-databar-conf').textContent = sug.confidence.toFixed(2);
      const extra = [];
      if (dataBar.magnification) extra.push(`Magnification ×${dataBar.magnification} (≈ ${dataBar.mag_um_per_px.toFixed(4)} µm/px on a ${dataBar.mag_reference_mm} mm reference width)`);
      if (dataBar.kv) extra.push(`${dataBar.kv} kV`);
      if (dataBar.pitch_um) extra.push(`lattice pitch ${dataBar.pitch_um.toFixed(1)} µm`);
      if (!dataBar.on_current_image) extra.push('read on the image as uploaded');
      $('#cal-databar-extra').textContent = extra.join(' · ');
      const flags = sug.flags.map(f => FLAG_TEXT[f] || f);
      $('#cal-databar-flags').hidden = !flags.length;
      $('#cal-databar-flags').textContent = flags.join(' ');
    }
    highlightDataBar();
  }
  function calibrationShown(name) {
    onCalibrationTab = name === 'calibration';
    if (onCalibrationTab && dataBarFor !== store.imageId) loadDataBar();
    else highlightDataBar();
  }

  $('#cal-estimate').addEventListener('click', () => setCalibration({ method: 'estimate' }, 'estimate'));
  $('#cal-use-suggested').addEventListener('click', () => setCalibration({ use_suggested: true }, 'file metadata'));
  $('#cal-use-databar').addEventListener('click', () => setCalibration({ use_data_bar: true }, 'SEM data bar'));
  $('#cal-databar-read').addEventListener('click', async () => {
    const res = await api('POST', `api/images/${store.imageId}/data-bar`, {});
    if (!res.ok) { toast(`Cannot read the data bar: ${errorText(res)}`, 'error', 6000); return; }
    loadDataBar();
  });
  $('#cal-direct-apply').addEventListener('click', () => {
    const v = Number($('#cal-direct').value);
    if (!(v > 0)) { toast('Enter a positive µm per pixel value', 'warning'); return; }
    setCalibration({ um_per_px: v, method: 'direct' }, 'direct input');
  });
  let measured = null;
  $('#cal-bar-apply').addEventListener('click', () => {
    const um = Number($('#cal-bar-um').value), px = Number($('#cal-bar-px').value);
    if (!(um > 0) || !(px > 0)) { toast('Enter both lengths (µm and pixels)', 'warning'); return; }
    if (measured && Math.abs(measured.px - px) < 1e-6) {
      const [[x1, y1], [x2, y2]] = measured.pts;
      // applied: the measuring is over (banner, line and pointer go)
      if (ws.editor.mode === 'measure') ws.editor.setMode(null);
      setCalibration({ x1, y1, x2, y2, length_um: um }, 'scale bar measured on the image');
    } else {
      if (ws.editor.mode === 'measure') ws.editor.setMode(null);
      setCalibration({ scale_um: um, scale_px: px }, 'scale bar');
    }
  });
  $('#cal-measure').addEventListener('click', () => {
    ws.editor.setMode('measure');
    $('#cal-measure-status').textContent = 'Click the first end of the scale bar.';
  });
  ws.measureDone = (pts) => {
    const px = Math.hypot(pts[1][0] - pts[0][0], pts[1][1] - pts[0][1]);
    measured = { px: Number(px.toFixed(2)), pts: pts.map(p => [Number(p[0].toFixed(2)), Number(p[1].toFixed(2))]) };
    $('#cal-bar-px').value = measured.px;
    $('#cal-measure-status').textContent = `Measured ${measured.px} px: enter the length in µm and Apply.`;
    const um = $('#cal-bar-um');
    um.focus();
    toast('Enter the scale bar length in µm, then Apply', 'info');
  };

  store.addEventListener('image', () => { renderInfo(); refreshSteps(); });
  // the image's first 'image' event may have come before this listener (the
  // workspace requests the image while the settings load): render it now,
  // or the calibration and the data bar's reading are never looked at
  if (store.image) { renderInfo(); refreshSteps(); }
  const scaleRegion = initScaleRegion(ws);
  return { renderCalibration, refreshSteps, shown: calibrationShown, scaleRegion };
}
