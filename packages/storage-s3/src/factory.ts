// @km/storage-s3/factory: how hosts build this connector from configuration; loads no SDK until used.
export { s3ContentStorageFactory } from './s3-factory.js';
