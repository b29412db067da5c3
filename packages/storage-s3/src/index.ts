export { S3ContentStorage } from './s3-content-storage.js';
export {
  DEFAULT_PART_SIZE_BYTES,
  DEFAULT_QUEUE_SIZE,
  MIN_PART_SIZE_BYTES,
  type S3ContentStorageOptions,
} from './s3-config.js';
export { translateS3Error, isMissingObject, isConditionalConflict } from './s3-errors.js';
export { s3ContentStorageFactory } from './s3-factory.js';
export { s3Source, S3SyncSource, type S3SourceOptions, type SkippedS3Object } from './s3-sync-source.js';
