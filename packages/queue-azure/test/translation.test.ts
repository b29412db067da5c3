import { isKmError } from '@km/core';
import { describe, expect, it } from 'vitest';
import {
  MAX_AZURE_MESSAGE_BYTES,
  azurePoisonQueueName,
  azureQueueName,
  decodeMessage,
  encodeMessage,
  translateAzureError,
} from '../src/index.js';

describe('Azure queue names', () => {
  it('maps km step names to Azure names: lower case, single hyphens, no leading or trailing hyphen', () => {
    expect(azureQueueName('', 'gen_embeddings')).toBe('gen-embeddings');
    expect(azureQueueName('km-', 'private_delete_index')).toBe('km-private-delete-index');
    expect(azureQueueName('KM__', '_Save__Records_')).toBe('km-save-records');
    expect(azurePoisonQueueName(azureQueueName('', 'extract'))).toBe('extract-poison');
  });

  it('refuses names too short or too long for Azure (with room for -poison)', () => {
    expect(() => azureQueueName('', '_a_')).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(azureQueueName('', 'x'.repeat(56))).toHaveLength(56);
    expect(() => azureQueueName('', 'x'.repeat(57))).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});

describe('message encoding', () => {
  it('is Base64 of the UTF-8 bytes and round-trips any text, markup included', () => {
    const message = '{"index":"ünï","document_id":"<doc>&\'x\'"}';
    expect(encodeMessage(message)).toBe(Buffer.from(message, 'utf8').toString('base64'));
    expect(decodeMessage(encodeMessage(message))).toBe(message);
  });

  it('refuses a message over Azure’s 64 KiB once encoded', () => {
    expect(() => encodeMessage('x'.repeat((MAX_AZURE_MESSAGE_BYTES / 4) * 3 + 1))).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(encodeMessage('x'.repeat((MAX_AZURE_MESSAGE_BYTES / 4) * 3))).toHaveLength(MAX_AZURE_MESSAGE_BYTES);
  });
});

describe('translateAzureError', () => {
  it('maps REST errors to typed km errors', () => {
    expect(isKmError(translateAzureError({ statusCode: 403, code: 'AuthenticationFailed', message: 'no' }, 'q'), 'unauthorized')).toBe(
      true,
    );
    const busy = translateAzureError({ statusCode: 503, code: 'ServerBusy', message: 'busy' }, 'q');
    expect(isKmError(busy, 'rate_limited') && busy.transient).toBe(true);
    expect(isKmError(translateAzureError({ code: 'REQUEST_SEND_ERROR', message: 'connect ECONNREFUSED' }, 'q'), 'transient')).toBe(true);
    const bad = translateAzureError({ statusCode: 400, code: 'InvalidQueueName', message: 'bad' }, 'q');
    expect(isKmError(bad, 'upstream_error') && !bad.transient).toBe(true);
  });
});
