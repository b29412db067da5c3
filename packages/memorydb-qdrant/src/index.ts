export { QdrantMemoryDb } from './qdrant-memory-db.js';
export { QdrantMemoryDbDriver } from './qdrant-memory-db-driver.js';
export { toPoint, toRecord, type QdrantPoint } from './point-mapping.js';
export type { QdrantMemoryDbOptions } from './qdrant-config.js';
export { toQdrantFilter, type QdrantFilter, type QdrantFieldCondition } from './qdrant-filters.js';
export { pointIdOf, uuidV5, KM_POINT_ID_NAMESPACE } from './point-id.js';
export { PayloadFields } from './payload-fields.js';
export { translateQdrantError } from './qdrant-errors.js';
export { qdrantMemoryDbFactory } from './qdrant-factory.js';
