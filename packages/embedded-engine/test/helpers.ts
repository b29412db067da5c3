import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { vi } from 'vitest';

/**
 * Makes the next `FileHandle.write` in this process write half its bytes and then fail with
 * ENOSPC (a full disk), as a torn append would; `directory` is where a probe file is opened to
 * reach the FileHandle prototype.
 */
export async function failNextFileWriteHalfWay(directory: string) {
  const probe = await open(join(directory, 'probe'), 'w');
  const handles = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<unknown> };
  await probe.close();
  const realWrite = handles.write;
  return vi.spyOn(handles, 'write').mockImplementationOnce(async function (this: unknown, data: unknown) {
    const bytes = data as Buffer;
    await realWrite.call(this, bytes.subarray(0, bytes.length >> 1));
    throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
  });
}
