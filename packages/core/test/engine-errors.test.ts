import { EngineError } from '@km/embedded-engine';
import { describe, expect, it } from 'vitest';
import { isKmError } from '../src/index.js';
import { engineCall, fromEngineError } from '../src/memory-storage/engine-errors.js';

function thrownInTheEngine(): EngineError {
  return new EngineError('transient', 'a scan worker stopped', { transient: true, ofStore: true });
}

describe('engine errors become KmErrors', () => {
  it('keeps code, message, transient and cause, and names the store only for errors about it', () => {
    const cause = new Error('worker exited');
    const aboutStore = fromEngineError(
      new EngineError('storage_corrupt', 'ids.bytes fails its checksum', { ofStore: true, cause }),
      'simple-vector-db',
    );
    expect(isKmError(aboutStore)).toBe(true);
    expect(aboutStore).toMatchObject({ code: 'storage_corrupt', connector: 'simple-vector-db', transient: false, cause });
    expect((aboutStore as Error).message).toContain('ids.bytes fails its checksum');

    const transient = fromEngineError(thrownInTheEngine(), 'simple-vector-db');
    expect(transient).toMatchObject({ code: 'transient', transient: true });

    const general = fromEngineError(new EngineError('invalid_argument', 'limit must be positive'), 'simple-vector-db');
    expect(isKmError(general)).toBe(true);
    expect((general as { connector?: string }).connector).toBeUndefined();
  });

  it('keeps the stack frames of the engine code that threw', async () => {
    const error = await engineCall('simple-vector-db', async () => {
      throw thrownInTheEngine();
    }).catch((e: unknown) => e as Error);
    expect(isKmError(error)).toBe(true);
    expect(error.stack).toContain('thrownInTheEngine');
  });

  it('passes any other error through as it is', () => {
    const plain = new TypeError('x');
    expect(fromEngineError(plain, 'simple-vector-db')).toBe(plain);
  });
});
