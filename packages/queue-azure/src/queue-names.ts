import { InvalidInputError } from '@km/core';
import { poisonQueueName } from '@km/core/connector';

/** Room kept for the `-poison` suffix under Azure's 63-character limit. */
const MAX_BASE_LENGTH = 63 - poisonQueueName('').length;

/**
 * The Azure queue name of a km queue: Azure allows 3 to 63 characters of lower-case letters,
 * digits and single hyphens, starting and ending with a letter or digit. km step names such as
 * `gen_embeddings` are mapped: lower case, every other character becomes `-`, runs of `-`
 * collapse, leading and trailing `-` go. A result that is still invalid is refused.
 *
 * ```ts
 * azureQueueName('km-', 'gen_embeddings') // 'km-gen-embeddings'
 * ```
 */
export function azureQueueName(prefix: string, name: string): string {
  const mapped = `${prefix}${name}`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
  if (mapped.length >= 3 && mapped.length <= MAX_BASE_LENGTH) return mapped;
  const message = `"${prefix}${name}" gives the Azure queue name "${mapped}", which must have 3 to ${MAX_BASE_LENGTH} characters`;
  throw new InvalidInputError('invalid_argument', message, { connector: 'azure-queue' });
}

/** The poison queue of an Azure queue name: km's `poisonQueueName` (from `@km/core/connector`). */
export const azurePoisonQueueName: (queue: string) => string = poisonQueueName;
