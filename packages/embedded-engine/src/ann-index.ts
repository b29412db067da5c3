import { readFile, rename, writeFile } from 'node:fs/promises';
import type { Logger } from './types.js';
import { decodeHnswGraph, encodeHnswGraph, HnswGraph, type HnswNodeKey, type HnswQuery } from './hnsw/index.js';
import type { SlotSpace } from './ann-space.js';

/** HNSW settings of a SimpleVectorDb index (see `SimpleVectorIndexOptions.hnsw`). */
export interface HnswIndexOptions {
  /** Records from which the graph is built (in the background); smaller indexes are scanned. @default 100_000 */
  minRecords?: number;
  /** Links per node on the upper levels (twice as many on level 0). @default 16 */
  m?: number;
  /** Candidates considered when linking a node. @default 200 */
  efConstruction?: number;
  /** Candidates kept while searching (at least the search limit). @default 128 */
  efSearch?: number;
  /** Filtered searches matching fewer records than this scan those rows exactly. @default 20_000 */
  exactBelow?: number;
}

/** The problem with HNSW settings, if any (every number finite, counts whole, m >= 2). */
export function hnswOptionsProblem(options: HnswIndexOptions): string | undefined {
  const { minRecords, m, efConstruction, efSearch, exactBelow } = options;
  for (const [name, value, least] of [
    ['minRecords', minRecords, 0],
    ['m', m, 2],
    ['efConstruction', efConstruction, 1],
    ['efSearch', efSearch, 1],
    ['exactBelow', exactBelow, 0],
  ] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value >= least))
      return `hnsw.${name} must be a whole number >= ${least}, got ${value}`;
  }
  return undefined;
}

/** What an {@link AnnIndex} reads of its vector index. */
export interface AnnHost {
  readonly space: SlotSpace;
  /** Live records. */
  size(): number;
  /** Every live slot. */
  liveSlots(): Iterable<number>;
  /** The id and vector check of a live slot. */
  keyOf(slot: number): HnswNodeKey;
  /** The live slot of an id whose vector still has this check. */
  resolve(id: string, check: number): number | undefined;
}

/** @internal State of the graph of an index. */
export interface AnnStatus {
  /** Nodes in the graph. */
  nodes: number;
  /** Slots waiting to be inserted (scored exactly by searches meanwhile). */
  pending: number;
  /** True when searches go through the graph. */
  ready: boolean;
}

/** Most pending slots with which searches still use the graph (each is scored exactly). */
const MAX_PENDING = 5000;
/** Work of one background build slice before yielding to the event loop. */
const SLICE_MS = 10;
/** Share of the index that must have changed since the last save to save again after a build. */
const RESAVE_SHARE = 0.1;

/**
 * The HNSW graph of one vector index over its slots, built lazily in the background: once the
 * index reaches `minRecords`, every slot is queued and inserted in slices of about 10 ms
 * (`setImmediate` between them); writes queue (upserts) or remove (deletes) slots meanwhile.
 * With a file, the graph is loaded from it at start (stale nodes dropped, missing slots queued)
 * and saved atomically after a build, after 10% of the index changed, and on close.
 */
export class AnnIndex {
  readonly minRecords: number;
  readonly exactBelow: number;
  readonly efSearch: number;
  private graph: HnswGraph;
  /** Slots to (re-)insert, in write order. */
  private readonly pending = new Set<number>();
  /** Where the background build is in {@link pending} (see {@link slice}). */
  private cursor: Iterator<number> | undefined;
  private active = false;
  private starting: Promise<void> | undefined;
  private stopped = false;
  private running = false;
  private changed = 0;
  private saved = false;
  /** Records when the graph was last saved or loaded (the base of {@link RESAVE_SHARE}). */
  private savedSize = 0;
  private saving: Promise<void> = Promise.resolve();
  /** A save is queued and has not encoded the graph yet: later changes are in it. */
  private saveQueued = false;
  private idleWaiters: Array<() => void> = [];
  /** @internal Nodes inserted (build and writes), nodes decoded from the file, graph searches. */
  readonly counts = { inserted: 0, loaded: 0, searches: 0 };

  constructor(
    private readonly host: AnnHost,
    private readonly options: HnswIndexOptions,
    private readonly file: string | undefined,
    private readonly logger: Logger | undefined,
  ) {
    this.minRecords = options.minRecords ?? 100_000;
    this.exactBelow = options.exactBelow ?? 20_000;
    this.efSearch = options.efSearch ?? 128;
    this.graph = this.newGraph();
  }

  /** True when searches should go through the graph. */
  get ready(): boolean {
    return this.active && !this.stopped && this.pending.size <= MAX_PENDING;
  }

  status(): AnnStatus {
    return { nodes: this.graph.size, pending: this.pending.size, ready: this.ready };
  }

  /**
   * Starts the graph once the index has `minRecords` records: loads the file if there is one,
   * queues the slots the graph lacks and starts the background build. Cheap when started.
   */
  start(): Promise<void> {
    if (this.active || this.stopped || this.host.size() < this.minRecords) return Promise.resolve();
    this.starting ??= this.load().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** A slot was written (new or replaced): (re-)insert it. */
  upserted(slot: number): void {
    if (!this.active) return;
    this.pending.add(slot);
    this.changed++;
    this.schedule();
  }

  /** A slot is about to be deleted (its row still readable): drop it from the graph and the queue. */
  deleting(slot: number): void {
    if (!this.active) return;
    this.pending.delete(slot);
    this.changed++;
    if (this.graph.has(slot)) {
      this.host.space.forget();
      try {
        this.graph.remove(slot);
      } catch (error) {
        this.fail(error);
        return;
      }
    }
    if (!this.running) this.saveIfChanged();
  }

  /**
   * Top `limit` graph nodes by `query`, best first, among `accept`ed ones; pending slots are
   * excluded (their nodes may be stale): the caller scores {@link pendingSlots} exactly.
   */
  search(query: HnswQuery, limit: number, accept?: (slot: number) => boolean): Array<[slot: number, score: number]> {
    this.counts.searches++;
    const pending = this.pending;
    const keep = pending.size === 0 ? accept : (slot: number) => !pending.has(slot) && (!accept || accept(slot));
    return this.graph.search(query, limit, { ef: Math.max(this.efSearch, limit), ...(keep ? { accept: keep } : {}) });
  }

  /** The space the graph reads vectors through (searches take their queries from it). */
  get space(): SlotSpace {
    return this.host.space;
  }

  /** Slots not (or not correctly) in the graph yet. */
  pendingSlots(): Iterable<number> {
    return this.pending;
  }

  /** Resolves once nothing is pending (or the graph stopped) and the last save finished. */
  async idle(): Promise<void> {
    if (this.starting) await this.starting;
    while (!this.stopped && (this.pending.size > 0 || this.running)) await new Promise<void>((done) => this.idleWaiters.push(done));
    await this.saving;
  }

  /** Stops the background build and saves the graph if it changed since the last save. */
  async close(): Promise<void> {
    if (this.starting) await this.starting.catch(() => undefined);
    const save = this.active && !this.stopped && (this.changed > 0 || !this.saved);
    this.stop();
    if (save) await this.save();
    await this.saving;
  }

  /** Stops the background build without saving (the index is dropped or replaced). */
  async stopWithoutSaving(): Promise<void> {
    this.stop();
    await this.saving;
  }

  private stop(): void {
    this.stopped = true;
    this.wakeIdle();
  }

  private newGraph(): HnswGraph {
    const { m, efConstruction, efSearch } = this.options;
    return new HnswGraph(this.host.space, {
      ...(m !== undefined ? { m } : {}),
      ...(efConstruction !== undefined ? { efConstruction } : {}),
      ...(efSearch !== undefined ? { efSearch } : {}),
    });
  }

  private async load(): Promise<void> {
    let bytes: Uint8Array | undefined;
    if (this.file) {
      try {
        bytes = await readFile(this.file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.warn('could not read the HNSW graph file; rebuilding it', error);
      }
    }
    if (this.active || this.stopped) return;
    if (bytes) {
      try {
        this.host.space.forget();
        const decoded = decodeHnswGraph(bytes, this.host.space, (id, check) => this.host.resolve(id, check), this.options);
        this.graph = decoded.graph;
        this.counts.loaded = decoded.graph.size;
        this.saved = true;
        this.savedSize = decoded.graph.size + decoded.stale;
        this.changed = decoded.stale;
      } catch (error) {
        this.warn('the HNSW graph file is unreadable; rebuilding it', error);
        this.graph = this.newGraph();
      }
    }
    this.active = true;
    for (const slot of this.host.liveSlots()) if (!this.graph.has(slot)) this.pending.add(slot);
    this.changed += this.pending.size;
    if (this.pending.size > 0) this.saved = false; // a build (full or catching up): save when it finishes
    if (this.pending.size > 0) this.schedule();
    else if (!this.saved) void this.save();
  }

  private schedule(): void {
    if (this.running || this.stopped || !this.active || this.pending.size === 0) return;
    this.running = true;
    setImmediate(() => this.slice());
  }

  /** Inserts pending slots for about {@link SLICE_MS}, then yields; never throws. */
  private slice(): void {
    if (this.stopped) {
      this.running = false;
      return;
    }
    try {
      this.host.space.forget();
      const end = performance.now() + SLICE_MS;
      // One cursor across slices: a new iterator per slice would step again over every entry
      // deleted before it (a Set keeps them as holes until it shrinks), quadratic in a large
      // build (12 s of a 1M build). A Set iterator sees the slots added meanwhile and skips the
      // deleted ones; once done it stays done, so the next slice starts a new one.
      const cursor = (this.cursor ??= this.pending.values());
      for (;;) {
        const next = cursor.next();
        if (next.done) {
          this.cursor = undefined;
          break;
        }
        this.pending.delete(next.value);
        this.graph.insert(next.value);
        this.counts.inserted++;
        if (performance.now() >= end) break;
      }
    } catch (error) {
      this.running = false;
      this.fail(error);
      return;
    }
    if (this.pending.size > 0) {
      setImmediate(() => this.slice());
      return;
    }
    this.running = false;
    this.saveIfChanged();
    this.wakeIdle();
  }

  /** Saves after a build, or once {@link RESAVE_SHARE} of the index changed since the last save. */
  private saveIfChanged(): void {
    if (this.file && !this.saveQueued && (!this.saved || this.changed >= RESAVE_SHARE * this.savedSize)) void this.save();
  }

  /** Writes the graph beside the log (temp file, then rename); a failure is logged. */
  private save(): Promise<void> {
    const file = this.file;
    if (!file) return this.saving;
    this.saveQueued = true;
    this.saving = this.saving.then(async () => {
      this.saveQueued = false;
      try {
        const pending = this.pending;
        const bytes = encodeHnswGraph(this.graph, (slot) => {
          const key = this.host.keyOf(slot);
          // A node queued for re-insertion was linked with an older vector: let the next load drop it.
          return pending.has(slot) ? { id: key.id, check: ~key.check >>> 0 } : key;
        });
        this.changed = 0;
        this.saved = true;
        this.savedSize = this.host.size();
        const temp = `${file}.${process.pid}.tmp`;
        await writeFile(temp, bytes);
        await rename(temp, file);
      } catch (error) {
        this.warn('could not save the HNSW graph file', error);
      }
    });
    return this.saving;
  }

  /** The graph failed (a bug): searches go back to exact scans. */
  private fail(error: unknown): void {
    this.warn('the HNSW graph failed; searches scan exactly', error);
    this.active = false;
    this.stopped = true;
    this.pending.clear();
    this.graph = this.newGraph();
    this.wakeIdle();
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const done of waiters) done();
  }

  private warn(message: string, error: unknown): void {
    const detail = { file: this.file, error: error instanceof Error ? error.message : String(error) };
    if (this.logger) this.logger.warn(message, detail);
    else process.emitWarning(`${message}: ${detail.error}`, { code: 'KM_HNSW' });
  }
}
