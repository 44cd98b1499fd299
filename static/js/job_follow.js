// job_follow.js - following a background job (a large image's extraction
// or Re-measure, issue 15) to its end in a progress box: its bar, its
// state and stage in a status line, and a Cancel button that asks the
// server to stop it. The box (elements given by the caller) is shown while
// the job runs and hidden after.
import { api, errorText } from './api.js';
import { toast } from './dom.js';

// job: the 202 answer's job; ui: { box, bar, text, cancel, label } (label
// names the work in the status line). Resolves with the job as it ended,
// or null when it could not be read (said in a toast).
export async function followJob(job, ui) {
  ui.box.hidden = false;
  const onCancel = () => api('POST', `api/jobs/${job.id}/cancel`);
  ui.cancel.addEventListener('click', onCancel);
  // Each look is a request to the site: the first comes soon (a job ends
  // within seconds), later ones further apart, at most 500 ms; a job that
  // is storing its result (progress 0.9 and on) is about to end, so it is
  // looked at every 100 ms again: its result shows without the half
  // second a fixed interval added on average.
  let wait = 100;
  try {
    for (;;) {
      ui.bar.value = job.progress || 0;
      ui.text.textContent = `${ui.label}: ${job.state}${job.stage ? ' (' + job.stage + ')' : ''}, ${Math.round(100 * (job.progress || 0))}%`;
      if (!['queued', 'starting', 'running'].includes(job.state)) return job;
      await new Promise(r => setTimeout(r, (job.progress || 0) >= 0.9 ? 100 : wait));
      wait = Math.min(500, wait * 1.5);
      const res = await api('GET', `api/jobs/${job.id}`);
      if (!res.ok) { toast(errorText(res), 'error'); return null; }
      job = res.data.job;
    }
  } finally {
    ui.cancel.removeEventListener('click', onCancel);
    ui.box.hidden = true;
  }
}
