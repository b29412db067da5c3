export { S3ContentStorage } from './s3-content-storage.js';
export {
  DEFAULT_PART_SIZE_BYTES,
  DEFAULT_QUEUE_SIZE,
  MIN_PART_SIZE_BYTES,
  type S3ContentStorageOptions,
} from './s3-config.js';
export { translateS3Error, isMissingObject, isConditionalConflict } from './s3-errors.js';
export { s3ContentStorageFactory } from './s3-factory.js';
