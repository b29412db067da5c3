/**
 * Int8 quantisation of unit vectors (SimpleVectorDb's `quantization: 'int8'`): each row keeps
 * `code ≈ round(x * 127 / max|x|)` (see {@link encodeRow}) and its scale `max|x| / 127`; a query becomes int16 codes with
 * its own scale. Their integer dot product times both scales approximates the float32 score within
 * {@link approximationBound}, which lets the search rescore few rows exactly yet stay exact.
 */

/**
 * Names the encoding below, for codes kept in a base file: a reader uses stored codes only when
 * they carry its own encoding (else it encodes the rows again). Change it with {@link encodeRow}.
 */
export const CODE_ENCODING = 'int8-max-abs-f32-nearest-1';

/** Largest row code magnitude. */
const ROW_MAX = 127;

/** Bytes of codes per row: the dimension rounded up to a multiple of 16 (zero padded). */
export function codeBytesOf(dimensions: number): number {
  return Math.ceil(dimensions / 16) * 16;
}

/**
 * Most a row value moves when encoded, in steps of its scale: half a step, plus what the float32
 * arithmetic of the encoding can add near a half step. With t = x / scale (|t| <= 127 and a hair),
 * `inv` is within 2^-24 of 1 / scale and `x * inv` rounds once more, so it is within about
 * 127 * 2^-23 of t; `+ 0.5` rounds within 128 * 2^-24. Together under 2.3e-5 steps: 2^-14 (6.1e-5)
 * bounds it with room to spare.
 */
export const ROW_ERROR_STEPS = 0.5 + 2 ** -14;

/**
 * Writes the int8 codes of `vector` into `codes` at `offset` (`vector.length` values; the caller
 * zeroes any padding) and returns the row's scale (0 for a zero vector). Each code is
 * `floor(x * inv + 0.5)` clamped to [-127, 127], with `scale = f32(max|x| / 127)`,
 * `inv = f32(1 / scale)` and every step rounded to float32: what the `encodeCodes` kernel computes
 * with float32 SIMD, bit for bit (a float32 operation is what the float64 one rounded to float32
 * gives). The code is within {@link ROW_ERROR_STEPS} steps of the value.
 */
export function encodeRow(vector: ArrayLike<number>, codes: Int8Array, offset: number): number {
  let max = 0;
  for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(Math.fround(vector[i]!)));
  if (max === 0) {
    codes.fill(0, offset, offset + vector.length);
    return 0;
  }
  const scale = Math.fround(max / ROW_MAX);
  const inv = Math.fround(1 / scale);
  for (let i = 0; i < vector.length; i++) {
    const code = Math.floor(Math.fround(Math.fround(Math.fround(vector[i]!) * inv) + 0.5));
    codes[offset + i] = Math.max(-ROW_MAX, Math.min(ROW_MAX, code));
  }
  return scale;
}

/** A query quantised to int16 for the code kernel. */
export interface QuantizedQuery {
  /** `codeBytes` int16 codes (zero padded). */
  codes: Int16Array;
  /** Value of one query code step. */
  scale: number;
  /** L1 norm of the dequantised query (`scale * sum |code|`). */
  l1: number;
  /** Most a query value moves when quantised (`scale / 2`), times sqrt(dimensions): bounds the query's share of the error. */
  queryError: number;
}

/**
 * Quantises a unit query to int16. The largest code is bounded so that `codeBytes` products of
 * an int8 row code and a query code cannot overflow the kernel's int32 sums.
 */
export function quantizeQuery(query: Float32Array, codeBytes: number): QuantizedQuery {
  const maxCode = Math.min(32767, Math.floor((2 ** 31 - 1) / (ROW_MAX * codeBytes)));
  const codes = new Int16Array(codeBytes);
  let max = 0;
  for (let i = 0; i < query.length; i++) max = Math.max(max, Math.abs(query[i]!));
  if (max === 0) return { codes, scale: 0, l1: 0, queryError: 0 };
  const scale = max / maxCode;
  let sum = 0;
  for (let i = 0; i < query.length; i++) {
    const code = Math.max(-maxCode, Math.min(maxCode, Math.round(query[i]! / scale)));
    codes[i] = code;
    sum += Math.abs(code);
  }
  return { codes, scale, l1: scale * sum, queryError: (scale / 2) * Math.sqrt(query.length) };
}

/** Slack for float32 rounding of the approximate and exact scores. */
const ROUNDING_SLACK = 1e-5;

/**
 * Most an approximate score can differ from the exact one, for rows whose scale is at most
 * `maxRowScale`: |q.x - q'.x'| <= |(q - q').x| + |q'.(x - x')| <= (qs/2)|x|_1 + (rs·e)|q'|_1, with
 * e = {@link ROW_ERROR_STEPS} (half a step and the encoding's float32 rounding) and
 * |x|_1 <= sqrt(dimensions) for a unit row.
 */
export function approximationBound(maxRowScale: number, query: QuantizedQuery): number {
  return maxRowScale * ROW_ERROR_STEPS * query.l1 + query.queryError + ROUNDING_SLACK;
}
