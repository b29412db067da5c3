// @km/storage-s3: written in issue 18.
export {};
