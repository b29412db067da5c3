import { InvalidInputError } from '@km/core';

/** Azure's largest message, in bytes of the (Base64) text sent. */
export const MAX_AZURE_MESSAGE_BYTES = 64 * 1024;

/**
 * A km message as Azure Storage Queue text: Base64 of its UTF-8 bytes, the encoding Kernel
 * Memory and the Azure SDKs use by default, so any text (XML markup included) survives.
 */
export function encodeMessage(message: string): string {
  const text = Buffer.from(message, 'utf8').toString('base64');
  if (text.length <= MAX_AZURE_MESSAGE_BYTES) return text;
  const refusal = `a queue message is ${text.length} bytes in Base64; Azure takes at most ${MAX_AZURE_MESSAGE_BYTES}`;
  throw new InvalidInputError('invalid_argument', refusal, { connector: 'azure-queue' });
}

/** The km message of an Azure message text. */
export function decodeMessage(text: string): string {
  return Buffer.from(text, 'base64').toString('utf8');
}
