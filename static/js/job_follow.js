// job_follow.js - following a background job (a large image's extraction
// or Re-measure, issue 15) to its end in a progress box: its bar, its
// state and stage in a status line, and a Cancel button that asks the
// server to stop it. The box (elements given by the caller) is shown while
// the job runs and hidden after.
//
// A job outlives the page that started it: when the workspace is reloaded
// or opened in another tab, resumeJobs asks the server for the user's
// active jobs on the open image and set (GET api/jobs?image_id=&set_id=)
// and hands each to the follower its kind registered with onResume, which
// shows it as if the page had started it.
import { api, errorText } from './api.js';
import { toast } from './dom.js';

// the jobs this page follows now: never two boxes for one job
const following = new Set();
const resumers = new Map();

// job: the 202 answer's job (or one from the job list); ui: { box, bar,
// text, cancel, label } (label names the work in the status line).
// Resolves with the job as it ended, or null when it could not be read
// (said in a toast) or this page follows it already.
export async function followJob(job, ui) {
  if (following.has(job.id)) return null;
  following.add(job.id);
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
    following.delete(job.id);
  }
}

// fn(job) follows a running job of this kind ('extract', 'remeasure')
// found by resumeJobs.
export function onResume(kind, fn) {
  resumers.set(kind, fn);
}

// Looks for the user's active jobs on store's image and open set now and
// whenever another set is opened, and resumes each through its kind's
// follower (one not followed yet). Resolves after the first look.
export function resumeJobs(store) {
  let looked = null;
  async function look() {
    const set = store.set;
    if (!set || set.id === looked) return;
    looked = set.id;
    const res = await api('GET', `api/jobs?image_id=${store.imageId}&set_id=${set.id}`);
    if (!res.ok) return;
    for (const job of res.data.jobs) {
      const fn = resumers.get(job.kind);
      if (fn && !following.has(job.id)) fn(job);
    }
  }
  store.addEventListener('set', look);
  return look();
}
