import type { DistanceFunction, KeyValue, VectorStoreFilter } from '@km/core';
import type { FilterOperator } from '@km/core/connector';

/**
 * The suite's own reading of the documented semantics (scores per distance function, the
 * filter language), written apart from core's evaluator so that a bug there is caught rather
 * than copied into the expectations.
 */

type AnyRecord = Record<string, unknown>;

/** The score of `b` for query `a` in `distance`'s convention, computed in doubles over float32 inputs. */
export function oracleScore(distance: DistanceFunction, a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  let squares = 0;
  for (let i = 0; i < a.length; i++) {
    const x = Math.fround(a[i]!);
    const y = Math.fround(b[i]!);
    dot += x * y;
    normA += x * x;
    normB += y * y;
    squares += (x - y) * (x - y);
  }
  switch (distance) {
    case 'cosine':
      return dot / Math.sqrt(normA * normB);
    case 'dot':
      return dot;
    case 'euclidean':
      return Math.sqrt(squares);
  }
}

/** True when `a` is a better score than `b` (higher for similarities, lower for euclidean distance). */
export function isBetter(distance: DistanceFunction, a: number, b: number): boolean {
  return distance === 'euclidean' ? a < b : a > b;
}

/** How far a store's score may be from the oracle's: 1e-4, relative above 1. */
export function scoreTolerance(expected: number): number {
  return 1e-4 * Math.max(1, Math.abs(expected));
}

/** Every candidate with its oracle score, best first (ties in key order). */
export function oracleRanking(
  distance: DistanceFunction,
  query: ArrayLike<number>,
  candidates: ReadonlyArray<readonly [KeyValue, ArrayLike<number>]>,
): Array<{ key: KeyValue; score: number }> {
  return candidates
    .map(([key, vector]) => ({ key, score: oracleScore(distance, query, vector) }))
    .sort((x, y) => (x.score === y.score ? String(x.key).localeCompare(String(y.key)) : isBetter(distance, x.score, y.score) ? -1 : 1));
}

function isOperatorObject(condition: unknown): condition is Record<string, unknown> {
  return typeof condition === 'object' && condition !== null && !(condition instanceof Date) && !Array.isArray(condition);
}

function timeOf(value: unknown): number {
  return value instanceof Date ? value.getTime() : new Date(value as string).getTime();
}

/** A comparison on a missing or null value is false; dates compare by their instant. */
function equals(value: unknown, operand: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (value instanceof Date) return value.getTime() === timeOf(operand);
  return value === operand;
}

/** Sign of `value - operand`, or undefined when the value is missing or null. */
function compare(value: unknown, operand: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Date) return Math.sign(value.getTime() - timeOf(operand));
  return Math.sign((value as number) - (operand as number));
}

function operatorHolds(value: unknown, op: string, operand: unknown): boolean {
  const order = compare(value, operand);
  switch (op) {
    case 'eq':
      return equals(value, operand);
    case 'ne':
      return !equals(value, operand);
    case 'in':
      return (operand as unknown[]).some((x) => equals(value, x));
    case 'gt':
      return order !== undefined && order > 0;
    case 'gte':
      return order !== undefined && order >= 0;
    case 'lt':
      return order !== undefined && order < 0;
    case 'lte':
      return order !== undefined && order <= 0;
    case 'contains':
      return Array.isArray(value) && value.some((element) => element === operand);
    default:
      throw new Error(`the oracle knows no operator "${op}"`);
  }
}

/**
 * Whether an application record matches a filter, as documented on `VectorStoreFilter`:
 * entries ANDed, a bare value is `eq`, several operators on one property are ANDed.
 *
 * ```ts
 * oracleMatches({ city: { ne: 'Paris' } }, { id: 'a' }); // true: ne matches a missing value
 * ```
 */
export function oracleMatches(filter: VectorStoreFilter<AnyRecord>, record: AnyRecord): boolean {
  return Object.entries(filter).every(([name, condition]) => {
    if (condition === undefined) return true;
    if (name === 'and') return (condition as VectorStoreFilter<AnyRecord>[]).every((f) => oracleMatches(f, record));
    if (name === 'or') return (condition as VectorStoreFilter<AnyRecord>[]).some((f) => oracleMatches(f, record));
    if (name === 'not') return !oracleMatches(condition as VectorStoreFilter<AnyRecord>, record);
    if (!isOperatorObject(condition)) return equals(record[name], condition);
    return Object.entries(condition).every(([op, operand]) => operatorHolds(record[name], op, operand));
  });
}

/**
 * The operators a filter needs from a store: `eq` for a bare value, `and` for several entries
 * or several operators on one property, and each one named.
 */
export function operatorsOf(filter: VectorStoreFilter<AnyRecord>, into = new Set<FilterOperator>()): Set<FilterOperator> {
  const entries = Object.entries(filter).filter(([, c]) => c !== undefined);
  if (entries.length > 1) into.add('and');
  for (const [name, condition] of entries) {
    if (name === 'and' || name === 'or') {
      into.add(name);
      for (const f of condition as VectorStoreFilter<AnyRecord>[]) operatorsOf(f, into);
    } else if (name === 'not') {
      into.add('not');
      operatorsOf(condition as VectorStoreFilter<AnyRecord>, into);
    } else if (isOperatorObject(condition)) {
      const ops = Object.keys(condition) as FilterOperator[];
      if (ops.length > 1) into.add('and');
      for (const op of ops) into.add(op);
    } else {
      into.add('eq');
    }
  }
  return into;
}
