// tab_log.js - the event log: filter by type (a trailing * matches a
// prefix), this image or all of the user's events, pages of 50 going back
// with "Older", and a live refresh every few seconds while the tab is open.

import { api, errorText } from './api.js';
import { $, el, toast } from './dom.js';

function detailCells(d) {
  const out = [];
  for (const [k, v] of Object.entries(d || {})) {
    if (k === 'hexagonalness_score' && typeof v === 'number') {
      const cls = v >= 0.7 ? 'good' : v >= 0.4 ? 'medium' : 'poor';
      out.push(el('span', { className: 'kv hex ' + cls }, `${k}: ${v.toFixed(3)}${d.reliability ? ' (' + d.reliability + ')' : ''}`));
    } else {
      out.push(el('span', { className: 'kv' }, `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`));
    }
  }
  return out;
}

export function initLog(ws) {
  let visible = false, before = null, timer = null, lastTop = null;
  // gen counts reloads: an answer that a newer reload has overtaken is
  // dropped, else a slow first page could replace the rows after "Older"
  // appended to them. shownQuery keeps a blur's change event (same filter)
  // from reloading at all.
  let gen = 0, shownQuery = null;

  function query(extra = '') {
    const q = new URLSearchParams({ limit: '50' });
    const type = $('#log-type').value.trim();
    if (type) q.set('type', type);
    if ($('#log-this-image').checked) q.set('image_id', String(ws.store.imageId));
    return 'api/log?' + q.toString() + extra;
  }

  function row(e) {
    return el('tr', { dataset: { id: e.id } },
      el('td', null, new Date(e.timestamp).toLocaleString()),
      // a browser-written event says so: it is the client's word, not the server's
      el('td', e.client ? { title: 'written by a browser (POST api/log), not by the server' } : null,
        e.event_type.replace(/_/g, ' ') + (e.client ? ' (client)' : '')),
      el('td', null, e.user || ''),
      el('td', null, ...detailCells(e.details)));
  }

  let moreBusy = false;
  async function load(more = false) {
    if (more && moreBusy) return;   // a double click must not fetch the same page twice
    if (!more) { gen++; shownQuery = query(); }
    const mine = gen;
    if (more) moreBusy = true;
    const res = await api('GET', query(more && before ? `&before_id=${before}` : ''))
      .finally(() => { if (more) moreBusy = false; });
    if (mine !== gen) return;
    if (!res.ok) { toast('Log: ' + errorText(res), 'error'); return; }
    const tb = $('#log-table tbody');
    const rows = res.data.entries.map(row);
    if (more) tb.append(...rows); else tb.replaceChildren(...rows);
    if (!more) lastTop = res.data.entries.length ? res.data.entries[0].id : null;
    before = res.data.next_before_id;
    $('#log-more').hidden = !before;
  }

  async function live() {
    if (!visible || !$('#log-live').checked) return;
    const res = await api('GET', query().replace('limit=50', 'limit=1'));
    if (res.ok && res.data.entries.length && res.data.entries[0].id !== lastTop) load();
  }

  $('#log-refresh').addEventListener('click', () => load());
  $('#log-more').addEventListener('click', () => load(true));
  const filterChanged = () => { if (query() !== shownQuery) load(); };
  $('#log-type').addEventListener('change', filterChanged);
  $('#log-this-image').addEventListener('change', filterChanged);
  return {
    shown(name) {
      visible = name === 'log';
      clearInterval(timer);
      if (visible) { load(); timer = setInterval(live, 3000); }
    },
  };
}
