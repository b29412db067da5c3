// @km/storage-azure-blobs/factory: written in issue 18.
export {};
