// @km/storage-azure-blobs: written in issue 18.
export {};
