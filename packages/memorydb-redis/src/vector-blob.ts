/** A vector as RediSearch's FLOAT32 blob: 4 bytes per component, little-endian. */
export function toFloat32Blob(vector: Float32Array | readonly number[]): Buffer {
  const blob = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) blob.writeFloatLE(vector[i]!, i * 4);
  return blob;
}

/** The vector of a FLOAT32 little-endian blob (trailing bytes that make no full float are ignored). */
export function fromFloat32Blob(blob: Buffer): Float32Array {
  const out = new Float32Array(Math.floor(blob.length / 4));
  for (let i = 0; i < out.length; i++) out[i] = blob.readFloatLE(i * 4);
  return out;
}
