// library.js - the library page: upload by drag-and-drop or file picker
// with a progress bar, recent images, visibility and delete (with a modal
// confirmation). The list itself is rendered by the server.

import { api, errorText, send, url } from './api.js';
import { $, el, confirmDialog, toast } from './dom.js';

const drop = $('#dropzone');
const input = $('#upload-input');
const status = $('#upload-status');
const list = $('#upload-list');
let uploading = false;

const IMAGE_NAME = /\.(tiff?|png|jpe?g)$/i;

// One file: its own row in #upload-list with a progress bar; resolves to the stored image
// (or null, the row saying why).
async function uploadOne(file, row) {
  const prog = row.querySelector('progress'), state = row.querySelector('.state');
  if (!IMAGE_NAME.test(file.name)) {
    state.textContent = 'not a TIFF, PNG or JPEG file';
    row.classList.add('failed');
    return null;
  }
  const fd = new FormData();
  fd.append('visibility', $('#upload-private').checked ? 'private' : 'shared');
  fd.append('file', file, file.name);
  state.textContent = 'uploading…';
  const res = await send('POST', 'api/images', fd, (f) => {
    prog.value = f;
    state.textContent = f < 1 ? `${Math.round(f * 100)}%` : 'processing…';
  });
  if (res.status === 202) {
    // a large image: stored, and prepared by a background job
    let job = res.data.job;
    while (['queued', 'starting', 'running'].includes(job.state)) {
      prog.value = job.progress || 0;
      state.textContent = `preparing in the background (large image): ${job.stage || job.state}…`;
      await new Promise(r => setTimeout(r, 500));
      const jr = await api('GET', `api/jobs/${job.id}`);
      if (!jr.ok) break;
      job = jr.data.job;
    }
    if (job.state !== 'done') {
      state.textContent = `could not be added: ${job.error || job.state}`;
      row.classList.add('failed');
      return null;
    }
    prog.value = 1;
    state.replaceChildren('added: ', el('a', { href: url(`workspace/${job.result.image_id}`) }, 'open'));
    row.classList.add('done');
    return { id: job.result.image_id };
  }
  if (!res.ok) {
    state.textContent = errorText(res);
    row.classList.add('failed');
    return null;
  }
  prog.value = 1;
  const img = res.data.image;
  state.replaceChildren(res.data.existing ? 'already in the library: ' : 'added: ', el('a', { href: url(`workspace/${img.id}`) }, 'open'));
  row.classList.add('done');
  return img;
}

// Every file of a drop or a pick, one after the other (each checked against
// the quota as it arrives). One image opens at once; several stay listed
// with their results and the library below is reloaded when all are in.
async function upload(files) {
  if (uploading || !files.length) return;
  files = [...files];
  if (files.length === 1 && !IMAGE_NAME.test(files[0].name)) {
    status.textContent = `${files[0].name}: not a TIFF, PNG or JPEG file.`;
    toast('Only TIFF, PNG and JPEG images can be added', 'error');
    return;
  }
  uploading = true;
  const rows = files.map(f => el('li', null, el('span', { className: 'file' }, f.name),
    el('progress', { max: 1, value: 0, 'aria-label': `upload of ${f.name}` }), el('span', { className: 'state' }, 'waiting')));
  list.replaceChildren(...rows);
  list.hidden = false;
  const done = [];
  try {
    for (let i = 0; i < files.length; i++) {
      status.textContent = files.length === 1 ? `Uploading ${files[0].name}…` : `Uploading ${i + 1} of ${files.length}: ${files[i].name}`;
      const img = await uploadOne(files[i], rows[i]);
      if (img) done.push(img);
    }
  } finally {
    uploading = false;
  }
  if (files.length === 1) {
    const img = done[0];
    if (!img) {
      const why = rows[0].querySelector('.state').textContent;
      status.textContent = `${files[0].name}: ${why}`;
      toast('Upload refused: ' + why, 'error');
      return;
    }
    status.textContent = `${files[0].name} added: opening it.`;
    location.href = url(`workspace/${img.id}`);
    return;
  }
  const failed = files.length - done.length;
  status.textContent = `${done.length} of ${files.length} image(s) added${failed ? `, ${failed} refused (see below)` : ''}.`;
  if (failed) toast(`${failed} of ${files.length} files were refused`, 'error');
  else toast(`${done.length} images added`, 'success');
  if (done.length) await refreshImages();
}

// The server-rendered list after uploads: the page's own list, re-read.
async function refreshImages() {
  const r = await fetch(location.href, { credentials: 'same-origin' });
  if (!r.ok) return;
  const doc = new DOMParser().parseFromString(await r.text(), 'text/html');
  const fresh = doc.querySelector('#library-list-card');
  const here = $('#library-list-card');
  if (fresh && here) here.replaceWith(document.adoptNode(fresh));
  indexNames();
  recent();
}

input.addEventListener('change', () => { if (input.files.length) upload(input.files); });
drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  if (e.dataTransfer.files.length) upload(e.dataTransfer.files);
});

// Sort and Order apply as soon as they change (no Search press needed).
// (delegated: the list's card is replaced after uploads)
document.addEventListener('change', (e) => {
  if (e.target.closest('#library-search select')) $('#library-search').requestSubmit();
});

// After a delete, the count and Recent follow the list.
function afterDelete(id) {
  const total = $('#library-total');
  if (total) total.textContent = String(Math.max(0, Number(total.textContent) - 1));
  for (const a of document.querySelectorAll('#recent-list a')) {
    if (a.dataset.id === String(id)) a.closest('li').remove();
  }
  if (!document.querySelector('#recent-list li')) $('#recent-card').hidden = true;
  ticked.delete(Number(id));
  showTicked();
}

document.addEventListener('click', async (e) => {
  const del = e.target.closest('.delete-image');
  if (del) {
    const li = del.closest('li.image');
    const name = li.dataset.name;
    if (!(await confirmDialog('Delete image', `Delete "${name}" with all its sets and measurements? This cannot be undone.`, 'Delete', true))) return;
    const res = await api('DELETE', `api/images/${del.dataset.id}`);
    if (!res.ok) { toast(errorText(res), 'error'); return; }
    li.remove();
    afterDelete(del.dataset.id);
    toast(`"${name}" deleted`, 'success');
    return;
  }
  const vis = e.target.closest('.toggle-visibility');
  if (vis) {
    const next = vis.dataset.visibility === 'shared' ? 'private' : 'shared';
    const res = await api('PATCH', `api/images/${vis.dataset.id}`, { visibility: next });
    if (!res.ok) { toast(errorText(res), 'error'); return; }
    vis.dataset.visibility = next;
    vis.textContent = next === 'shared' ? 'Make private' : 'Share';
    vis.closest('li.image').querySelector('.visibility').textContent = next;
    toast(`Now ${next}`, 'success');
  }
});

async function recent() {
  const res = await api('GET', 'api/images/recent');
  if (!res.ok || !res.data.images.length) return;
  $('#recent-list').replaceChildren(...res.data.images.slice(0, 10).map(im =>
    el('li', null, el('a', { href: url(`workspace/${im.id}`), className: 'button-link', dataset: { id: String(im.id) }, title: `${im.width} × ${im.height}, ${im.owner_login}` }, im.name))));
  $('#recent-card').hidden = false;
}
recent();

// ---- batch extraction: ticked images (or a search) as background jobs ----
const ticked = new Set();
const names = new Map();
function indexNames() {
  for (const li of document.querySelectorAll('li.image')) names.set(Number(li.dataset.id), li.dataset.name);
}
indexNames();
function showTicked() {
  $('#batch-selected').textContent = `${ticked.size} ticked`;
}
document.addEventListener('change', (e) => {
  const box = e.target.closest('.select-image');
  if (!box) return;
  const id = Number(box.dataset.id);
  if (box.checked) ticked.add(id); else ticked.delete(id);
  showTicked();
});
$('#batch-target').addEventListener('change', () => {
  $('#batch-new-set-label').hidden = $('#batch-target').value !== 'new';
});

async function loadProfiles() {
  const res = await api('GET', 'api/profiles');
  if (!res.ok) return;
  const sel = $('#batch-profile');
  for (const p of res.data.profiles.filter(p => p.builtin)) sel.append(el('option', { value: p.name }, p.name));
}

const watching = new Set();
function renderBatch(batchId, name, jobs) {
  let box = document.getElementById(`batch-${batchId}`);
  if (!box) {
    box = el('div', { className: 'batch', id: `batch-${batchId}` }, el('h3'), el('ul'));
    $('#batch-list').prepend(box);
  }
  const done = jobs.filter(j => j.state === 'done').length;
  box.querySelector('h3').textContent = `${name}: ${done} of ${jobs.length} done`;
  box.querySelector('ul').replaceChildren(...jobs.map(j => {
    const pct = Math.round(100 * (j.progress || 0));
    const what = j.state === 'failed' ? `failed: ${j.error || ''}` : j.state === 'running' ? `running ${pct}%` : j.state;
    return el('li', { className: j.state, dataset: { job: j.id, state: j.state } },
      el('a', { href: url(`workspace/${j.image_id}`) }, names.get(j.image_id) || `image ${j.image_id}`),
      el('progress', { max: 1, value: j.state === 'done' ? 1 : (j.progress || 0), 'aria-label': `progress of image ${j.image_id}` }),
      el('span', { className: 'state' }, what));
  }));
}

async function watchBatch(batchId, name) {
  if (watching.has(batchId)) return;
  watching.add(batchId);
  for (;;) {
    const res = await api('GET', `api/batches/${batchId}`);
    if (!res.ok) break;
    renderBatch(batchId, name, res.data.jobs);
    if (!res.data.jobs.some(j => ['queued', 'starting', 'running'].includes(j.state))) break;
    await new Promise(r => setTimeout(r, 1000));
  }
  watching.delete(batchId);
}

$('#batch-start').addEventListener('click', async () => {
  const body = {};
  if ($('#batch-scope').value === 'selected') {
    if (!ticked.size) { toast('Tick the images to extract first (or choose "every image matching the search")', 'warning'); return; }
    body.image_ids = [...ticked];
  } else {
    body.q = new URLSearchParams(location.search).get('q') || '';
  }
  if ($('#batch-profile').value) body.profile = $('#batch-profile').value;
  if ($('#batch-target').value === 'new') body.new_set = $('#batch-new-set').value.trim();
  const res = await api('POST', 'api/batches', body);
  if (!res.ok) { toast('Batch refused: ' + errorText(res), 'error', 8000); return; }
  toast(`${res.data.jobs.length} extraction(s) queued`, 'success');
  renderBatch(res.data.batch.id, res.data.batch.name, res.data.jobs);
  watchBatch(res.data.batch.id, res.data.batch.name);
});

async function resumeBatches() {
  const res = await api('GET', 'api/jobs');
  if (!res.ok) return;
  for (const b of res.data.batches.reverse()) watchBatch(b.id, b.name);
}
showTicked();
loadProfiles();
resumeBatches();
