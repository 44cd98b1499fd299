// library.js - the library page: upload by drag-and-drop or file picker
// with a progress bar, recent images, visibility and delete (with a modal
// confirmation). The list itself is rendered by the server.

import { api, errorText, send, url } from './api.js';
import { $, el, confirmDialog, toast } from './dom.js';

const drop = $('#dropzone');
const input = $('#upload-input');
const bar = $('#upload-progress');
const status = $('#upload-status');
let uploading = false;

async function upload(file) {
  if (uploading) return;
  if (!/\.(tiff?|png|jpe?g)$/i.test(file.name)) {
    status.textContent = `${file.name}: not a TIFF, PNG or JPEG file.`;
    toast('Only TIFF, PNG and JPEG images can be added', 'error');
    return;
  }
  uploading = true;
  const fd = new FormData();
  fd.append('visibility', $('#upload-private').checked ? 'private' : 'shared');
  fd.append('file', file, file.name);
  bar.hidden = false;
  bar.value = 0;
  status.textContent = `Uploading ${file.name}…`;
  const res = await send('POST', 'api/images', fd, (f) => {
    bar.value = f;
    status.textContent = f < 1 ? `Uploading ${file.name}: ${Math.round(f * 100)}%` : `Processing ${file.name}…`;
  });
  if (res.status === 202) {
    // a large image: stored, and prepared by a background job
    let job = res.data.job;
    while (['queued', 'starting', 'running'].includes(job.state)) {
      bar.value = job.progress || 0;
      status.textContent = `Preparing ${file.name} in the background (large image): ${job.stage || job.state}…`;
      await new Promise(r => setTimeout(r, 500));
      const jr = await api('GET', `api/jobs/${job.id}`);
      if (!jr.ok) break;
      job = jr.data.job;
    }
    uploading = false;
    bar.hidden = true;
    if (job.state !== 'done') {
      status.textContent = `${file.name}: ${job.error || job.state}`;
      toast('The image could not be added: ' + (job.error || job.state), 'error', 8000);
      return;
    }
    status.textContent = `${file.name} added: opening it.`;
    location.href = url(`workspace/${job.result.image_id}`);
    return;
  }
  uploading = false;
  bar.hidden = true;
  if (!res.ok) {
    status.textContent = `${file.name}: ${errorText(res)}`;
    toast('Upload refused: ' + errorText(res), 'error', 8000);
    return;
  }
  const img = res.data.image;
  status.textContent = res.data.existing ? `${file.name} was already in the library: opening it.` : `${file.name} added: opening it.`;
  location.href = url(`workspace/${img.id}`);
}

input.addEventListener('change', () => { if (input.files[0]) upload(input.files[0]); });
drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  const f = e.dataTransfer.files[0];
  if (f) upload(f);
});

document.addEventListener('click', async (e) => {
  const del = e.target.closest('.delete-image');
  if (del) {
    const li = del.closest('li.image');
    const name = li.dataset.name;
    if (!(await confirmDialog('Delete image', `Delete "${name}" with all its sets and measurements? This cannot be undone.`, 'Delete', true))) return;
    const res = await api('DELETE', `api/images/${del.dataset.id}`);
    if (!res.ok) { toast(errorText(res), 'error'); return; }
    li.remove();
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
    el('li', null, el('a', { href: url(`workspace/${im.id}`), className: 'button-link', title: `${im.width} × ${im.height}, ${im.owner_login}` }, im.name))));
  $('#recent-card').hidden = false;
}
recent();

// ---- batch extraction: ticked images (or a search) as background jobs ----
const ticked = new Set();
const names = new Map();
for (const li of document.querySelectorAll('li.image')) names.set(Number(li.dataset.id), li.dataset.name);
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
