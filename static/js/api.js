// api.js - talking to the server: URLs built from the page's base path,
// the CSRF header on every unsafe request, JSON in and out, and uploads
// with progress through XMLHttpRequest.

const body = document.body;
export const BASE = body.dataset.base || '/';
const CSRF = body.dataset.csrf || '';

export function url(path) {
  return BASE + path.replace(/^\//, '');
}

// Resolves to {ok, status, data}; never rejects on HTTP errors so callers
// can explain them. A network failure becomes status 0.
export async function api(method, path, json) {
  const opts = { method, headers: {}, credentials: 'same-origin' };
  if (method !== 'GET' && method !== 'HEAD') opts.headers['X-CSRF-Token'] = CSRF;
  if (json !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(json);
  }
  let res;
  try {
    res = await fetch(url(path), opts);
  } catch (e) {
    return { ok: false, status: 0, data: { success: false, error: 'the server cannot be reached' } };
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = { success: false, error: `HTTP ${res.status}` };
  }
  if (!data || typeof data !== 'object') data = { success: res.ok };
  return { ok: res.ok, status: res.status, data };
}

// Sends a FormData (multipart) or Blob with upload progress; onProgress(0..1).
export function send(method, path, payload, onProgress, contentType) {
  return new Promise((resolve) => {
    const x = new XMLHttpRequest();
    x.open(method, url(path));
    x.setRequestHeader('X-CSRF-Token', CSRF);
    if (contentType) x.setRequestHeader('Content-Type', contentType);
    if (onProgress) x.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(e.loaded / e.total); };
    x.onload = () => {
      let data;
      try { data = JSON.parse(x.responseText); } catch { data = { success: false, error: `HTTP ${x.status}` }; }
      resolve({ ok: x.status >= 200 && x.status < 300, status: x.status, data });
    };
    x.onerror = () => resolve({ ok: false, status: 0, data: { success: false, error: 'the upload failed (network)' } });
    x.send(payload);
  });
}

export function errorText(res) {
  const d = res.data || {};
  return d.error || `request failed (HTTP ${res.status})`;
}
