import type { ContainerClient } from '@azure/storage-blob';
import { mapWithConcurrency } from '@km/core/connector';
import { isNotFound, restErrorShape, translateBlobError } from './azure-blob-errors.js';

/** Azure's limit of sub-requests in one blob batch. */
export const MAX_BATCH_DELETES = 256;
/** Single deletes at once where blob batches are refused. */
const SINGLE_DELETE_CONCURRENCY = 16;

/**
 * Deletes every blob whose name starts with `prefix`, a page of the listing at a time, in
 * blob batches of up to 256 deletes. A blob already gone is fine. Where the account refuses
 * batches (some SAS tokens, hierarchical-namespace accounts), it deletes one by one, 16 at a time.
 */
export class BlobDeletion {
  private batchesRefused = false;

  constructor(private readonly container: ContainerClient) {}

  async deleteUnder(prefix: string): Promise<void> {
    if (!prefix.endsWith('/')) throw new Error(`refusing to delete under ${JSON.stringify(prefix)}: not a folder`);
    try {
      const pages = this.container.listBlobsFlat({ prefix }).byPage({ maxPageSize: MAX_BATCH_DELETES });
      for await (const page of pages) {
        const names = page.segment.blobItems.map((b) => b.name);
        if (names.length > 0) await this.deleteBlobs(names);
      }
    } catch (error) {
      if (isNotFound(error)) return; // the container is missing: nothing to delete
      throw translateBlobError(error, `delete under "${prefix}"`);
    }
  }

  private async deleteBlobs(names: string[]): Promise<void> {
    if (!this.batchesRefused) {
      try {
        const clients = names.map((n) => this.container.getBlobClient(n));
        const answer = await this.container.getBlobBatchClient().deleteBlobs(clients);
        const failed = answer.subResponses.find((r) => r.status >= 300 && r.status !== 404);
        if (failed) {
          const error = { statusCode: failed.status, code: failed.errorCode ?? '', message: failed.statusMessage };
          throw translateBlobError(error, `delete of "${failed._request.url}"`);
        }
        return;
      } catch (error) {
        if (!batchRefused(error)) throw error;
        this.batchesRefused = true;
      }
    }
    await mapWithConcurrency(names, SINGLE_DELETE_CONCURRENCY, async (name) => {
      try {
        await this.container.getBlobClient(name).deleteIfExists();
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    });
  }
}

/** The whole batch was refused as a kind of request (not a credential, throttling or server failure). */
function batchRefused(error: unknown): boolean {
  const { status, code } = restErrorShape(error);
  return (status === 400 || status === 403 || status === 404 || status === 501) && !/AuthenticationFailed/.test(code);
}
