/**
 * Source of a {@link ScanPool} worker, run with `new Worker(SCAN_WORKER_SOURCE, { eval: true })` so
 * it works the same from TypeScript sources (tests) and from dist. It compiles the kernels module
 * from the base64 bytes in `workerData.wasm`, keeps one instance per shared memory (by the id the
 * pool gave it) and answers each task `{ id, memoryId, memory?, kernel, args }` with `{ id }` or
 * `{ id, error }`. `{ forget: memoryId }` drops the instance of a memory the main thread let go.
 */
export const SCAN_WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const compiled = new WebAssembly.Module(Buffer.from(workerData.wasm, 'base64'));
const instances = new Map();
parentPort.on('message', (task) => {
  if (task.forget !== undefined) {
    instances.delete(task.forget);
    return;
  }
  try {
    let kernels = instances.get(task.memoryId);
    if (kernels === undefined) {
      if (task.memory === undefined) throw new Error('memory ' + task.memoryId + ' was never sent to this worker');
      kernels = new WebAssembly.Instance(compiled, { env: { memory: task.memory } }).exports;
      instances.set(task.memoryId, kernels);
    }
    const kernel = kernels[task.kernel];
    if (typeof kernel !== 'function') throw new Error('no kernel named ' + task.kernel);
    kernel(...task.args);
    parentPort.postMessage({ id: task.id });
  } catch (error) {
    parentPort.postMessage({ id: task.id, error: String((error && error.message) || error) });
  }
});
`;
