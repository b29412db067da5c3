import { InvalidInputError } from '../errors/km-error.js';
import type { RecordDefinition } from './record-definition-types.js';
import type { VectorStoreDriver } from './vector-store-driver.js';

/**
 * Checks that a driver can hold a definition: the key type among its `keyTypes`, every
 * distance among its `distances`, every data type among its `dataTypes`, every vector within
 * its `maxDimensions`. Throws `invalid_argument` naming the property and what the store holds.
 *
 * ```ts
 * checkDefinitionSupported(driver, Hotel); // throws when, say, the store has no euclidean search
 * ```
 */
export function checkDefinitionSupported(
  driver: Pick<VectorStoreDriver, 'name' | 'keyTypes' | 'distances' | 'dataTypes' | 'maxDimensions'>,
  definition: RecordDefinition<unknown>,
): void {
  const refuse = (message: string): never => {
    throw new InvalidInputError('invalid_argument', `${driver.name} cannot hold ${message}`, { connector: driver.name });
  };
  const { key } = definition;
  if (!driver.keyTypes.includes(key.type)) refuse(`key ${key.name} of type ${key.type}; its key types: ${driver.keyTypes.join(', ')}`);
  for (const property of definition.data) {
    if (driver.dataTypes && !driver.dataTypes.includes(property.type)) {
      refuse(`data property ${property.name} of type ${property.type}; its data types: ${driver.dataTypes.join(', ')}`);
    }
  }
  for (const vector of definition.vectors) {
    if (!driver.distances.includes(vector.distance)) {
      refuse(`vector ${vector.name} with distance ${vector.distance}; its distances: ${driver.distances.join(', ')}`);
    }
    if (driver.maxDimensions !== undefined && vector.dimensions > driver.maxDimensions) {
      refuse(`vector ${vector.name} of ${vector.dimensions} dimensions; at most ${driver.maxDimensions}`);
    }
  }
}
