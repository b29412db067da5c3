// Step 5: the installed `km serve` with its embedded defaults (local embeddings, no key): upload
// a small text file, wait for its pipeline, ask about it, list the index's documents, stop it.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { projectEnv, tail } from './processes.mjs';
import { CheckFailure, fail } from './transcript.mjs';

const INDEX = 'packed';
const DOCUMENT_ID = 'solar-facts';
const FILE_TEXT = [
  'Facts about the solar system.',
  'Titan is the largest moon of Saturn, with a thick nitrogen atmosphere.',
  'Olympus Mons on Mars is the tallest volcano known in the solar system.',
  '',
].join('\n');
const QUESTION = 'Which is the largest moon of Saturn?';
const EXPECTED = 'Titan is the largest moon of Saturn';
/** How long ingestion may take: the local embedding model loads on first use, slowly on a busy machine. */
const INGESTION_DEADLINE_MS = 180_000;

/**
 * Runs the service check; returns the transcript's detail lines.
 * @param {string} project
 * @param {string} dataDirectory a fresh folder
 * @returns {Promise<string[]>}
 */
export async function checkService(project, dataDirectory) {
  const km = join(project, 'node_modules', '.bin', 'km');
  const child = spawn(km, ['serve', '--port', '0', '--data-dir', dataDirectory], {
    cwd: project,
    env: projectEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (chunk) => {
    log += chunk;
  });
  child.stderr.on('data', (chunk) => {
    log += chunk;
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  try {
    const url = await waitFor(
      async () => /listening on (http:\/\/\S+)/.exec(log)?.[1],
      60_000,
      () => `km serve did not say it was listening within 60 s:\n${tail(log)}`,
      () => child.exitCode !== null && fail(`km serve exited with ${child.exitCode}:`, tail(log)),
    );
    const health = await waitFor(
      async () => {
        const response = await fetch(`${url}/health`).catch(() => undefined);
        return response?.ok ? `${response.status} ${await response.text()}` : undefined;
      },
      30_000,
      () => `${url}/health did not answer 200 within 30 s`,
    );

    const form = new FormData();
    form.set('index', INDEX);
    form.set('documentId', DOCUMENT_ID);
    form.set('file1', new Blob([FILE_TEXT], { type: 'text/plain' }), 'solar-facts.txt');
    const upload = await fetch(`${url}/upload`, { method: 'POST', body: form });
    if (upload.status !== 202) fail(`POST /upload answered ${upload.status}:`, await upload.text());

    const start = performance.now();
    const status = await waitFor(
      async () => {
        const response = await fetch(`${url}/upload-status?index=${INDEX}&documentId=${DOCUMENT_ID}`);
        if (response.status === 404) return undefined;
        const body = await response.json();
        if (body.failed) fail('the uploaded document failed:', JSON.stringify(body, null, 2));
        return body.completed ? body : undefined;
      },
      INGESTION_DEADLINE_MS,
      () => `the document did not complete within ${INGESTION_DEADLINE_MS / 1000} s:\n${tail(log)}`,
    );
    const ingestion = ((performance.now() - start) / 1000).toFixed(1);

    const ask = await fetch(`${url}/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ index: INDEX, question: QUESTION }),
    });
    const answer = await ask.json();
    if (!ask.ok || typeof answer.text !== 'string' || !answer.text.includes(EXPECTED))
      fail(`POST /ask "${QUESTION}" answered ${ask.status} without "${EXPECTED}":`, JSON.stringify(answer, null, 2));

    const listing = await fetch(`${url}/documents?index=${INDEX}`);
    const documents = await listing.json();
    const listed = documents.documents?.find((d) => d.documentId === DOCUMENT_ID);
    if (!listing.ok || listed?.state !== 'completed')
      fail(`GET /documents?index=${INDEX} does not list ${DOCUMENT_ID} as completed:`, JSON.stringify(documents, null, 2));

    child.kill('SIGTERM');
    const { code, signal } = await withTimeout(exited, 30_000, 'km serve did not stop within 30 s of SIGTERM');
    if (code !== 0) fail(`km serve exited with ${code ?? signal} on SIGTERM instead of 0:`, tail(log));
    const listening = log.split('\n').find((line) => line.includes('listening on')) ?? '';
    const quoted = answer.text.split('\n').find((line) => line.includes(EXPECTED)) ?? '';
    return [
      listening.trim(),
      `GET /health: ${health}`,
      `POST /upload solar-facts.txt (${FILE_TEXT.length} bytes, documentId ${DOCUMENT_ID}): 202; completed in ${ingestion} s (steps: ${status.completed_steps.join(', ')})`,
      `POST /ask "${QUESTION}": ${JSON.stringify(quoted.trim().slice(0, 120))}`,
      `GET /documents?index=${INDEX}: ${documents.documents.length} document(s), ${DOCUMENT_ID} ${listed.state}, ${listed.files.length} file(s), ${listed.size} bytes`,
      'SIGTERM: exited with 0',
    ];
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/**
 * Polls `probe` every 250 ms until it returns a value; fails after `deadlineMs`.
 * @template T
 * @param {() => Promise<T | undefined>} probe
 * @param {number} deadlineMs
 * @param {() => string} timeoutMessage
 * @param {() => unknown} [check] called before each probe, to fail early (e.g. the process died)
 * @returns {Promise<T>}
 */
async function waitFor(probe, deadlineMs, timeoutMessage, check) {
  const deadline = performance.now() + deadlineMs;
  for (;;) {
    check?.();
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) fail(timeoutMessage());
    await delay(250);
  }
}

/**
 * The promise's value, or a failure when it takes longer than `ms`.
 * @template T
 * @param {Promise<T>} promise
 * @param {number} ms
 * @param {string} message
 * @returns {Promise<T>}
 */
async function withTimeout(promise, ms, message) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new CheckFailure(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
