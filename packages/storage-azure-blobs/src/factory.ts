// @km/storage-azure-blobs/factory: how hosts build this connector from configuration; loads no SDK until used.
export { azureBlobsContentStorageFactory } from './azure-blobs-factory.js';
