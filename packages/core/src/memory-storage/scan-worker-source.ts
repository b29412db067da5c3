/**
 * Source of a {@link ScanPool} worker, run with `new Worker(SCAN_WORKER_SOURCE, { eval: true })` so
 * it works the same from TypeScript sources (tests) and from dist. It compiles the kernels module
 * from the base64 bytes in `workerData.wasm`, keeps one instance per shared memory (by the id the
 * pool gave it) and answers each task `{ id, memoryId, memory?, kernel, args }` with `{ id }` or
 * `{ id, error }`. A task `{ id, verify: { buffer, start, end } }` checks the crc32 of the record-log
 * entries in a shared buffer and answers `{ id, result }`: the offset of the first corrupt entry, or -1. `{ forget: memoryId }` drops the instance of a memory the main thread let go.
 */
export const SCAN_WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const compiled = new WebAssembly.Module(Buffer.from(workerData.wasm, 'base64'));
const instances = new Map();
const { crc32 } = require('node:zlib');
/** Offset of the first entry of bytes[start, end) whose crc32 is wrong, or -1 (see record-log.ts). */
function firstCorruptEntry(bytes, start, end) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = start; at < end; ) {
    const length = view.getUint32(at, true);
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (crc32(body) !== view.getUint32(at + 4, true)) return at;
    at += 8 + length;
  }
  return -1;
}
parentPort.on('message', (task) => {
  if (task.forget !== undefined) {
    instances.delete(task.forget);
    return;
  }
  if (task.verify !== undefined) {
    try {
      const bad = firstCorruptEntry(new Uint8Array(task.verify.buffer), task.verify.start, task.verify.end);
      parentPort.postMessage({ id: task.id, result: bad });
    } catch (error) {
      parentPort.postMessage({ id: task.id, error: String((error && error.message) || error) });
    }
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
