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
