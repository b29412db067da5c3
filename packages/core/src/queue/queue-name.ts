import { InvalidInputError } from '../errors/km-error.js';

/** Checks a queue name of km's own queues (a folder name for the file queue): lower-case letters, digits, `-` and `_`. */
export function checkLocalQueueName(name: string, connector: string): string {
  if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9_-]{0,62}$/.test(name)) {
    throw new InvalidInputError('invalid_argument', `queue name ${JSON.stringify(name)} is invalid: lower-case letters, digits, - and _`, {
      connector,
    });
  }
  return name;
}
