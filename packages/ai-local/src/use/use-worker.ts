import { parentPort } from 'node:worker_threads';
import type { WorkerJob, WorkerReply } from '../worker-pool.js';
import { embedPacked, loadUseModel } from './use-model.js';

// One worker thread of the Universal Sentence Encoder pool: loads the model once, then embeds
// the batches it is sent and transfers the packed vectors back.
const port = parentPort!;
const reply = (message: WorkerReply<Float32Array>, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

try {
  const model = await loadUseModel();
  await model.embed(['warm up']);
  port.on('message', (job: WorkerJob<string[]>) => {
    embedPacked(model, job.payload).then(
      (vectors) => reply({ type: 'result', id: job.id, result: vectors }, [vectors.buffer as ArrayBuffer]),
      (e: unknown) => reply({ type: 'error', id: job.id, message: e instanceof Error ? e.message : String(e) }),
    );
  });
  reply({ type: 'ready' });
} catch (e) {
  reply({ type: 'init-error', message: e instanceof Error ? e.message : String(e) });
}
