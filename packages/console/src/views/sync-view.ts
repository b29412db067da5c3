import type { SyncJob, SyncRequest } from '@km/wire';
import type { ApiClient } from '../api-client.js';
import type { ConsoleState } from '../console-state.js';
import { messageArea } from '../dialogs.js';
import { field, h, replaceChildren } from '../dom.js';

/** How often the job list is read again while a job runs, in ms. */
const REFRESH_MS = 1000;

/**
 * Starts sync jobs on the service (a folder on the service's disk, under its KM_SYNC_ROOTS, or a
 * web site) into the chosen index, and lists the recent jobs with their state and counts,
 * refreshed while one runs; a running job can be cancelled.
 */
export function syncView(api: ApiClient, state: ConsoleState): HTMLElement {
  const message = messageArea();
  const type = h(
    'select',
    { name: 'sync-type' },
    h('option', { value: 'folder' }, "Folder on the service's machine"),
    h('option', { value: 'web' }, 'Web site'),
  );
  const location = h('input', { type: 'text', name: 'sync-location', autocomplete: 'off', spellcheck: 'false', required: true });
  const locationField = field('Folder path', location, 'A folder under one of the service’s KM_SYNC_ROOTS.');
  const deleteMissing = h('input', { type: 'checkbox', name: 'sync-delete', checked: true });
  const submit = h('button', { type: 'submit' }, 'Start sync');
  const target = h('strong', {}, state.index);
  const jobList = h('ul', { class: 'sync-jobs', 'aria-live': 'polite' });
  let timer: number | undefined;

  const describeType = () => {
    const web = type.value === 'web';
    const label = locationField.querySelector('label');
    const hint = locationField.querySelector('.hint');
    if (label) label.textContent = web ? 'Start URL' : 'Folder path';
    if (hint) hint.textContent = web ? 'The pages linked under this URL are synced.' : 'A folder under one of the service’s KM_SYNC_ROOTS.';
    location.placeholder = web ? 'https://example.com/docs/' : '/srv/docs';
  };
  type.addEventListener('change', describeType);
  state.onIndexChange((index) => {
    target.textContent = index;
  });

  const render = (jobs: SyncJob[]) => {
    replaceChildren(
      jobList,
      ...(jobs.length === 0 ? [h('li', { class: 'muted' }, 'No sync job yet.')] : jobs.map((job) => jobItem(job, () => void cancel(job)))),
    );
  };
  const refresh = async () => {
    window.clearTimeout(timer);
    try {
      const jobs = await api.listSyncJobs();
      render(jobs);
      if (jobs.some((j) => j.status === 'running')) timer = window.setTimeout(() => void refresh(), REFRESH_MS);
    } catch (error) {
      message.error(`Could not list the sync jobs: ${(error as Error).message}`);
    }
  };
  const cancel = async (job: SyncJob) => {
    try {
      await api.cancelSyncJob(job.jobId);
      message.info(`Cancelling the sync of ${job.sourceId}.`);
    } catch (error) {
      message.error(`Could not cancel: ${(error as Error).message}`);
    }
    await refresh();
  };
  const start = async (event: Event) => {
    event.preventDefault();
    message.clear();
    const value = location.value.trim();
    if (!value) {
      message.error(type.value === 'web' ? 'Enter the start URL of the site.' : 'Enter the path of a folder.');
      return;
    }
    const request: SyncRequest = {
      index: state.index,
      deleteMissing: deleteMissing.checked,
      source: type.value === 'web' ? { type: 'web', url: value } : { type: 'folder', path: value },
    };
    submit.disabled = true;
    try {
      const job = await api.startSync(request);
      message.info(`Sync of ${job.sourceId} into "${job.index}" started.`);
      await refresh();
    } catch (error) {
      message.error(`Sync refused: ${(error as Error).message}`);
    } finally {
      submit.disabled = false;
    }
  };

  describeType();
  void refresh();
  return h(
    'section',
    { id: 'sync', 'aria-labelledby': 'sync-title' },
    h('h2', { id: 'sync-title' }, 'Sync'),
    h('p', {}, 'Keeps ', target, ' in step with a folder or a web site: new and changed items are ingested, removed ones deleted.'),
    h(
      'form',
      { onsubmit: (event: Event) => void start(event) },
      field('Source type', type),
      locationField,
      h('div', { class: 'field checkbox' }, h('label', {}, deleteMissing, ' Delete the documents of items that are gone')),
      h('div', { class: 'actions' }, submit, h('button', { type: 'button', class: 'secondary', onclick: () => void refresh() }, 'Refresh')),
    ),
    message.element,
    h('h3', {}, 'Recent jobs'),
    jobList,
  );
}

/** One job: source, index, state, counts, error, and a cancel button while it runs. */
function jobItem(job: SyncJob, cancel: () => void): HTMLLIElement {
  const c = job.counts;
  return h(
    'li',
    { class: 'sync-job', 'data-state': job.status, 'data-job-id': job.jobId },
    h('span', { class: 'sync-source' }, job.sourceId),
    ' → ',
    h('span', { class: 'sync-index' }, job.index),
    ' ',
    h('span', { class: 'state' }, job.status === 'running' ? `running (${job.phase})` : job.status),
    h(
      'p',
      { class: 'counts muted' },
      `listed ${c.listed}, added ${c.added}, updated ${c.updated}, unchanged ${c.unchanged}, deleted ${c.deleted}, failed ${c.failed}`,
    ),
    job.error ? h('p', { class: 'error' }, job.error) : null,
    job.status === 'running'
      ? h('button', { type: 'button', class: 'danger', onclick: cancel, 'aria-label': `Cancel the sync of ${job.sourceId}` }, 'Cancel')
      : null,
  );
}
