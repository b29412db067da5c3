import type { Document } from 'mongodb';
import { cursorReply, errorReply, type RecordedCommand } from './mongo-wire-recorder.js';

/** A search index as the fake server keeps it: its size and how many more listings report it not yet queryable. */
export interface FakeSearchIndex {
  size: number;
  buildingFor: number;
}

/**
 * Answers for the wire recorder, like a server with Atlas Vector Search would answer them:
 * collections and search indexes kept in memory, fixed documents for `find` and `$vectorSearch`.
 * It lets the connector run its command sequence; it does not search (shapes only).
 */
export class AtlasLikeServer {
  readonly collections = new Set<string>();
  readonly searchIndexes = new Map<string, FakeSearchIndex>();

  /** A collection with a search index of `size`, already queryable. */
  existing(name: string, size: number): void {
    this.collections.add(name);
    this.searchIndexes.set(name, { size, buildingFor: 0 });
  }

  readonly answer = (command: RecordedCommand): Document | undefined => {
    const c = command.command;
    const coll = String(c[command.name]);
    switch (command.name) {
      case 'listCollections': {
        const name = (c.filter as { name?: string } | undefined)?.name;
        const names = [...this.collections].filter((n) => name === undefined || n === name);
        return cursorReply(
          'km.$cmd.listCollections',
          names.map((n) => ({ name: n, type: 'collection' })),
        );
      }
      case 'create':
        if (this.collections.has(coll)) return errorReply(48, 'NamespaceExists', `Collection km.${coll} already exists.`);
        this.collections.add(coll);
        return undefined;
      case 'drop':
        if (!this.collections.delete(coll)) return errorReply(26, 'NamespaceNotFound', 'ns not found');
        this.searchIndexes.delete(coll);
        return undefined;
      case 'createSearchIndexes': {
        const size = (c.indexes as Array<{ definition: { fields: Array<{ numDimensions?: number }> } }>)[0]!.definition.fields[0]!
          .numDimensions!;
        this.searchIndexes.set(coll, { size, buildingFor: 1 });
        return { indexesCreated: [{ id: 'abc', name: 'km_vector' }], ok: 1 };
      }
      case 'aggregate': {
        const first = (c.pipeline as Document[])[0]!;
        if ('$listSearchIndexes' in first) return this.listSearchIndexes(coll);
        return cursorReply(`km.${coll}`, [
          { _id: 'd=a//p=1', tags: ['user:a'], payload: { text: 'x' }, embedding: [0, 1, 0], score: 0.75 },
        ]);
      }
      case 'find':
        return cursorReply(
          `km.${coll}`,
          ['a', 'b'].map((_id) => ({ _id, tags: [], payload: { text: _id } })),
        );
      case 'update':
        return { n: (c.updates as unknown[]).length, nModified: 0, ok: 1 };
      case 'delete':
        return { n: 1, ok: 1 };
      default:
        return undefined;
    }
  };

  private listSearchIndexes(coll: string): Document {
    const index = this.searchIndexes.get(coll);
    if (!index) return cursorReply(`km.${coll}`, []);
    const queryable = index.buildingFor-- <= 0;
    const fields = [
      { type: 'vector', path: 'embedding', numDimensions: index.size, similarity: 'cosine' },
      { type: 'filter', path: 'tags' },
    ];
    return cursorReply(`km.${coll}`, [
      {
        id: 'abc',
        name: 'km_vector',
        type: 'vectorSearch',
        status: queryable ? 'READY' : 'BUILDING',
        queryable,
        latestDefinition: { fields },
      },
    ]);
  }
}

/** True when the recorded command is an aggregate whose first stage is `stage` (e.g. `$listSearchIndexes`). */
export function isStage(command: RecordedCommand, stage: string): boolean {
  return command.name === 'aggregate' && stage in ((command.command.pipeline as Document[])[0] ?? {});
}
