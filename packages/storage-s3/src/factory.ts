// @km/storage-s3/factory: written in issue 18.
export {};
