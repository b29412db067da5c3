/**
 * Source of a {@link ScanPool} worker, run with `new Worker(SCAN_WORKER_SOURCE, { eval: true })` so
 * it works the same from TypeScript sources (tests) and from dist. It compiles the kernels module
 * from the base64 bytes in `workerData.wasm`, keeps one instance per shared memory (by the id the
 * pool gave it) and answers each task `{ id, memoryId, memory?, kernel, args }` with `{ id }` or
 * `{ id, error }`. A task `{ id, verify: { buffer, start, end } }` checks the crc32 of the record-log
 * entries in a shared buffer and answers `{ id, result }`: the offset of the first corrupt entry, or -1.
 * A task `{ id, rows: {...} }` finishes the rows a bulk load copied raw (see `ScanPool.finishRows`). `{ forget: memoryId }` drops the instance of a memory the main thread let go.
 */
export const SCAN_WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const compiled = new WebAssembly.Module(Buffer.from(workerData.wasm, 'base64'));
/** memoryId -> { kernels, memory } */
const instances = new Map();
const { crc32 } = require('node:zlib');
function instanceOf(memoryId, memory) {
  let instance = instances.get(memoryId);
  if (instance === undefined) {
    if (memory === undefined) throw new Error('memory ' + memoryId + ' was never sent to this worker');
    instance = { kernels: new WebAssembly.Instance(compiled, { env: { memory } }).exports, memory };
    instances.set(memoryId, instance);
  }
  return instance;
}
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
/**
 * Finishes rows a bulk load copied raw into a vector segment (see bulk-rows.ts): each row's norm
 * (summed in float64 in index order, as l2norm does) into norms[i], the row divided by it in
 * place (zeros when it is 0), and with codes, its int8 codes and scale (as CodeSegment.write
 * does). Returns the largest scale.
 */
function finishRows(task) {
  const t = task.rows;
  const vector = instanceOf(t.vectorMemoryId, t.vectorMemory);
  const floats = new Float32Array(vector.memory.buffer);
  const codes = t.codeMemoryId === undefined ? undefined : instanceOf(t.codeMemoryId, t.codeMemory);
  const codeFloats = codes && new Float32Array(codes.memory.buffer);
  const codeBytes = codes && new Int8Array(codes.memory.buffer);
  const rows = new Int32Array(t.rows);
  const norms = new Float64Array(t.norms);
  const dims = t.dimensions;
  let maxScale = 0;
  for (let i = 0; i < rows.length; i++) {
    const start = t.rowsOffset + rows[i] * t.stride * 4;
    const base = start >> 2;
    let sum = 0;
    for (let k = 0; k < dims; k++) sum += floats[base + k] * floats[base + k];
    const norm = Math.sqrt(sum);
    norms[i] = norm;
    if (norm > 0) vector.kernels.normalise(start, dims, norm);
    else floats.fill(0, base, base + dims);
    if (codes) {
      codeFloats.set(floats.subarray(base, base + dims), t.encodeOffset >> 2);
      const at = t.codesOffset + rows[i] * t.codeStride;
      const scale = codes.kernels.encodeCodes(t.encodeOffset, at, dims);
      codeBytes.fill(0, at + dims, at + t.codeBytes);
      codeFloats[(at + t.codeBytes) >> 2] = scale;
      if (scale > maxScale) maxScale = scale;
    }
  }
  return maxScale;
}
parentPort.on('message', (task) => {
  if (task.forget !== undefined) {
    instances.delete(task.forget);
    return;
  }
  try {
    if (task.verify !== undefined) {
      const bad = firstCorruptEntry(new Uint8Array(task.verify.buffer), task.verify.start, task.verify.end);
      parentPort.postMessage({ id: task.id, result: bad });
      return;
    }
    if (task.rows !== undefined) {
      parentPort.postMessage({ id: task.id, result: finishRows(task) });
      return;
    }
    const kernel = instanceOf(task.memoryId, task.memory).kernels[task.kernel];
    if (typeof kernel !== 'function') throw new Error('no kernel named ' + task.kernel);
    kernel(...task.args);
    parentPort.postMessage({ id: task.id });
  } catch (error) {
    parentPort.postMessage({ id: task.id, error: String((error && error.message) || error) });
  }
});
`;
