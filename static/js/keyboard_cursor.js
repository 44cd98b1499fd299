// keyboard_cursor.js - the image without a mouse. While the image (#viewer)
// has the keyboard focus and a mode that clicks on the image is on (add,
// chain, delete multiple, measure, move), a crosshair stands for the
// pointer: the arrow keys move it (one screen pixel ×8, ×40 with Shift),
// Enter or Space clicks there, as the mouse would. Without such a mode the
// arrows keep their meaning (nudging the selected tubercle) and Tab in the
// image still selects the next tubercle.

const CLICK_MODES = new Set(['add_tub', 'add_itc', 'add_chain', 'delete_multi', 'measure', 'move']);

export function initKeyboardCursor(ws) {
  const viewer = document.getElementById('viewer');
  let cursor = null; // image coordinates

  function active() {
    return document.activeElement === viewer && ws.editor && CLICK_MODES.has(ws.editor.mode);
  }
  function centre() {
    const v = ws.viewer;
    return v.toImage(v.cssW / 2, v.cssH / 2);
  }
  function clamp(p) {
    const s = ws.store;
    return [Math.max(0, Math.min(s.width - 1, p[0])), Math.max(0, Math.min(s.height - 1, p[1]))];
  }
  function say(text) {
    const live = document.getElementById('viewer-cursor-status');
    if (live) live.textContent = text;
  }

  viewer.addEventListener('keydown', (e) => {
    if (!active() || e.ctrlKey || e.metaKey || e.altKey) return;
    // chain mode keeps its own arrow navigation once a tubercle is current
    if (ws.editor.mode === 'add_chain' && e.key.startsWith('Arrow') && ws.editor.chain.current != null && !e.shiftKey) return;
    const step = (e.shiftKey ? 40 : 8) / ws.viewer.scale;
    let d = null;
    if (e.key === 'ArrowLeft') d = [-step, 0];
    else if (e.key === 'ArrowRight') d = [step, 0];
    else if (e.key === 'ArrowUp') d = [0, -step];
    else if (e.key === 'ArrowDown') d = [0, step];
    if (d) {
      e.preventDefault();
      e.stopPropagation();
      cursor = clamp([(cursor || centre())[0] + d[0], (cursor || centre())[1] + d[1]]);
      say(`Pointer at ${Math.round(cursor[0])}, ${Math.round(cursor[1])} px`);
      ws.viewer.request();
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      e.stopPropagation();
      if (!cursor) cursor = clamp(centre());
      ws.editor.click(cursor[0], cursor[1]);
    }
  }, true);

  viewer.addEventListener('focus', () => {
    if (CLICK_MODES.has(ws.editor && ws.editor.mode)) say('Arrow keys move the pointer, Enter clicks.');
    ws.viewer.request();
  });
  viewer.addEventListener('blur', () => ws.viewer.request());
  ws.modeListeners.push((mode) => { if (!CLICK_MODES.has(mode)) cursor = null; });

  // the crosshair, drawn in screen units on the image layer
  ws.overlayHooks.push((ctx, view, phase) => {
    if (phase !== 'screen' || !active()) return;
    const p = cursor || centre();
    const k = 1 / view.scale;
    ctx.save();
    ctx.lineWidth = 2 * k;
    for (const [col, w] of [['#000', 4 * k], ['#fde047', 2 * k]]) {
      ctx.strokeStyle = col;
      ctx.lineWidth = w;
      ctx.beginPath();
      ctx.moveTo(p[0] - 12 * k, p[1]); ctx.lineTo(p[0] - 4 * k, p[1]);
      ctx.moveTo(p[0] + 4 * k, p[1]); ctx.lineTo(p[0] + 12 * k, p[1]);
      ctx.moveTo(p[0], p[1] - 12 * k); ctx.lineTo(p[0], p[1] - 4 * k);
      ctx.moveTo(p[0], p[1] + 4 * k); ctx.lineTo(p[0], p[1] + 12 * k);
      ctx.stroke();
    }
    ctx.restore();
  });
  return { position: () => cursor };
}
