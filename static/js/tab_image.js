// tab_image.js - the Image tab (rotate, crop by dragging, autocrop) and
// the Calibration tab (current value and method, estimate, scale bar by
// numbers or by two clicks on the image, direct input, file metadata).
// Rotate and crop move every set's tubercles on the server; the page then
// reloads the image and the open set.

import { api, errorText } from './api.js';
import { $, confirmDialog, fmt, toast } from './dom.js';

const METHOD_BADGE = { estimate: 'Estimated', direct: 'Manual', scale_bar: 'Manual', manual: 'Manual', metadata: 'From file', measure: 'Measured' };

export function initImageTabs(ws) {
  const store = ws.store;
  let cropRect = null;

  if (!ws.canManage) {
    $('#image-manage-note').hidden = false;
    for (const id of ['rotate-left', 'rotate-right', 'crop-start', 'autocrop', 'cal-estimate', 'cal-bar-apply', 'cal-direct-apply', 'cal-use-suggested', 'cal-measure'])
      $('#' + id).disabled = true;
  }

  async function transform(path, body, label) {
    if (store.set && store.set.dirty &&
        !(await confirmDialog(label, 'The open set has unsaved changes. The tubercles of every set move with the image, and the change can be undone per set. Continue?', label))) return false;
    const res = await api('POST', `api/images/${store.imageId}/${path}`, { ...body, revision: store.image.revision });
    if (!res.ok) { toast(`${label} failed: ${errorText(res)}`, 'error', 6000); return false; }
    await ws.reloadImage();
    ws.viewer.fit();
    $('#image-size').textContent = `${store.width} × ${store.height}`;
    renderInfo();
    toast(`${label}: done`, 'success');
    return true;
  }

  function renderInfo() {
    const im = store.image;
    if (!im) return;
    $('#image-info').textContent = `${im.width} × ${im.height} px, ${im.format}, rotation ${im.rotation}°, owner ${im.owner_login}, ${im.visibility}`;
    renderCalibration();
  }

  $('#rotate-left').addEventListener('click', () => transform('rotate', { direction: 'left' }, 'Rotate left'));
  $('#rotate-right').addEventListener('click', () => transform('rotate', { direction: 'right' }, 'Rotate right'));
  $('#autocrop').addEventListener('click', () => transform('autocrop', {}, 'Autocrop'));
  $('#crop-start').addEventListener('click', () => { ws.editor.setMode('crop'); });
  $('#crop-cancel').addEventListener('click', () => { ws.editor.setMode(null); });
  $('#crop-apply').addEventListener('click', async () => {
    if (!cropRect) return;
    const x = Math.max(0, Math.round(cropRect.x0)), y = Math.max(0, Math.round(cropRect.y0));
    const w = Math.min(store.width, Math.round(cropRect.x1)) - x, h = Math.min(store.height, Math.round(cropRect.y1)) - y;
    ws.editor.setMode(null);
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
  }

  $('#cal-estimate').addEventListener('click', () => setCalibration({ method: 'estimate' }, 'estimate'));
  $('#cal-use-suggested').addEventListener('click', () => setCalibration({ use_suggested: true }, 'file metadata'));
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
      setCalibration({ x1, y1, x2, y2, length_um: um }, 'scale bar measured on the image');
    } else {
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

  store.addEventListener('image', renderInfo);
  return { renderCalibration };
}
