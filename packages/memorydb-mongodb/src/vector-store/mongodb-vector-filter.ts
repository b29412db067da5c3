import type { FilterNode, FilterScalar } from '@km/core/connector';
import type { Document } from 'mongodb';
import { KEY_FIELD } from './mongodb-vector-documents.js';

/** A filter that matches nothing: the search or read is not sent. */
export const MATCH_NOTHING = Symbol('match nothing');

/**
 * A checked filter → an MQL filter in the operators Atlas Vector Search accepts in
 * `$vectorSearch.filter` (`$eq $ne $gt $gte $lt $lte $in $and $or $nor`), so the same object is
 * the search's pre-filter and `find`'s query. Values are always operands, never keys, so no
 * value can add an operator. `{}` when anything matches, {@link MATCH_NOTHING} when nothing can.
 *
 * - `eq`, ranges, `in` are the MQL operators on the field (the key is `_id`); on an array,
 *   `contains` is `$eq`, which matches when one element equals the value;
 * - `ne` is `$ne` and `not` is `$nor: [...]`: both match documents without the field, as the
 *   filter language says;
 * - `in: []` and `or: []` match nothing, `and: []` everything.
 *
 * ```ts
 * toMongoVectorFilter(node); // { $and: [{ rating: { $gte: 4 } }, { tags: { $eq: 'pool' } }] }
 * ```
 */
export function toMongoVectorFilter(filter: FilterNode | undefined): Document | typeof MATCH_NOTHING {
  if (filter === undefined) return {};
  const translated = translate(filter);
  return translated === true ? {} : translated === false ? MATCH_NOTHING : translated;
}

/** A filter document, or `true` / `false` for one that matches everything / nothing. */
type Filter = Document | boolean;

function translate(node: FilterNode): Filter {
  switch (node.op) {
    case 'and':
    case 'or': {
      const parts = node.nodes.map(translate);
      const absorbing = node.op === 'or';
      if (parts.includes(absorbing)) return absorbing;
      const filters = parts.filter((p): p is Document => typeof p !== 'boolean');
      if (filters.length === 0) return !absorbing;
      return filters.length === 1 ? filters[0]! : { [`$${node.op}`]: filters };
    }
    case 'not': {
      const inner = translate(node.node);
      return typeof inner === 'boolean' ? !inner : { $nor: [inner] };
    }
    case 'in':
      if (node.values.length === 0) return false;
      return { [field(node.property)]: { $in: node.values.map(operand) } };
    case 'contains':
      return { [field(node.property)]: { $eq: node.value } };
    default:
      return { [field(node.property)]: { [`$${node.op}`]: operand(node.value) } };
  }
}

function field(property: { kind: string; storageName: string }): string {
  return property.kind === 'key' ? KEY_FIELD : property.storageName;
}

/** A value as compared: dates as BSON dates (a `Date`), the rest as they are. */
function operand(value: FilterScalar): FilterScalar {
  return value instanceof Date ? new Date(value.getTime()) : value;
}
