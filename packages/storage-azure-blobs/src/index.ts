export { AzureBlobsContentStorage } from './azure-blobs-content-storage.js';
export type { AzureBlobsContentStorageOptions, TokenCredentialLike } from './azure-blobs-options.js';
export { containerClientOf, defaultAccountUrl, withSas } from './container-client.js';
export { BlobDeletion, MAX_BATCH_DELETES } from './blob-deletion.js';
export { bodyOf, uploadStreamed } from './blob-transfer.js';
export { translateBlobError, isConditionFailed, isNotFound, isInvalidRange } from './azure-blob-errors.js';
export { azureBlobsContentStorageFactory } from './azure-blobs-factory.js';
export { azureBlobSource, AzureBlobSyncSource, type AzureBlobSourceOptions, type SkippedBlob } from './azure-blob-sync-source.js';
