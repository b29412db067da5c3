/** Answer (202) of `POST /upload`: the document is stored and its ingestion pipeline started. */
export interface UploadAccepted {
  index: string;
  documentId: string;
  message: string;
}

/** Answer (202) of `DELETE /documents` (with `documentId`) and `DELETE /indexes` (without). */
export interface DeletionAccepted {
  index: string;
  documentId?: string;
  message: string;
}

/** An index as `GET /indexes` lists it. */
export interface IndexDetails {
  name: string;
}

/** Answer of `GET /indexes`. */
export interface IndexList {
  results: IndexDetails[];
}
