import { crc32 } from 'node:zlib';
import type { Logger, Tags, TagFilter } from './types.js';
import { AnnIndex, type AnnStatus, type HnswIndexOptions } from './ann-index.js';
import { EngineError } from './engine-error.js';
import { MAX_PLACED_SEGMENTS, placeOf, rowOfPlace, segmentOfPlace, SlotSpace } from './ann-space.js';
import { prefaultOn } from './prefault.js';
import { CodeSegment, codeStrideOf } from './code-segment.js';
import { approximationBound, CODE_ENCODING, quantizeQuery, type QuantizedQuery } from './int8-codes.js';
import { type ParallelScanOptions, scanOnPool, settled, WORKER_LANES } from './parallel-scan.js';
import type { BaseSource } from './record-base-file.js';
import type { RecordBase } from './record-base.js';
import { ScanGate } from './scan-gate.js';
import { ScanLanes } from './scan-lanes.js';
import type { ScanPool } from './scan-pool.js';
import { TagIndex } from './tag-index.js';
import { compareRecordIds, l2norm } from './util.js';
import { TopK } from './top-k.js';
import { strideOf, VectorSegment } from './vector-segment.js';

/**
 * The rows of a base file as {@link VectorIndex.loadBase} reads them: `readRows` fills `into`
 * from byte `from` of the stored rows; `readCodes` likewise for the code rows, when the file
 * holds codes the index can use.
 */
export interface BaseRows {
  /** Bytes of one stored row in the file. */
  rowBytes: number;
  readRows(from: number, into: Uint8Array): Promise<void>;
  /** The code rows, when the file holds them in this version's encoding, with their bytes per row. */
  codes?: { rowBytes: number; read(from: number, into: Uint8Array): Promise<void> } | undefined;
}

/** A stored record: vector in a segment row, the rest here. */
export interface IndexEntry {
  id: string;
  tags: Tags;
  /** Payload as JSON text: compact, and every read gets its own copy. */
  payloadJson: string;
  norm: number;
  segment: number;
  row: number;
}

/** Options of {@link VectorIndex.search}. */
export interface IndexSearchOptions {
  filters?: readonly TagFilter[] | undefined;
  minRelevance: number;
  limit: number;
  /** Copy each result's vector (as given) into its hit. */
  withVectors?: boolean | undefined;
}

/**
 * One search result, copied when the search ranked it: a write that runs once the search is
 * over (it moves rows, replaces tags and payloads) cannot change it.
 */
export interface IndexHit {
  id: string;
  tags: Tags;
  payloadJson: string;
  /** The vector as given, with `withVectors`. */
  vector: Float32Array | undefined;
}

/** Per-index settings of SimpleVectorDb (exported from @km/core). */
export interface SimpleVectorIndexOptions {
  /**
   * 'int8': also keep an int8 code row (and a scale) beside each float32 row, scan the codes
   * (about a quarter of the bytes), then rescore the best candidates exactly in float32: results
   * and scores stay exact, for about 26% more memory (400 more bytes a record at 384 dimensions).
   * 'none': float32 scan only. @default 'int8' (in SimpleVectorDb)
   */
  quantization?: 'none' | 'int8';
  /**
   * Approximate search through an HNSW graph, opt-in: `{}` turns it on with the defaults. Once the
   * index holds `minRecords` records the graph is built in the background (slices of ~10 ms, the
   * event loop stays responsive; ~400 inserts/s at 100k records) and, with a directory, saved
   * beside the log as `hnsw.graph`. Until it is ready searches scan exactly. Results are then
   * approximate (scores stay exact cosines); filters matching fewer than `exactBelow` records
   * scan those rows exactly, larger ones are applied during the graph search. @default false
   */
  hnsw?: false | HnswIndexOptions;
}

/** Options of {@link VectorIndex}. */
export interface VectorIndexOptions extends SimpleVectorIndexOptions {
  /** Worker threads for the scans of large indexes; without it every scan runs on the calling thread. */
  scan?: ParallelScanOptions | undefined;
  /** Where the HNSW graph is saved (none: kept in memory only). */
  annFile?: string | undefined;
  /** Where HNSW file problems are reported. @default a process warning */
  logger?: Logger | undefined;
  /** @internal Fewer rows per segment than the default (tests span several segments with few records). */
  segmentRows?: number | undefined;
}

/** `records matching the filters * FEW_MATCHES < size`: score only the matching rows. */
const FEW_MATCHES = 4;

/**
 * The in-memory part of one SimpleVectorDb index: normalised vectors in contiguous
 * WebAssembly segments, records by slot, a tag index for filters, exact top-k search
 * (optionally over int8 codes first, see {@link SimpleVectorIndexOptions.quantization}).
 */
export class VectorIndex {
  private readonly segments: VectorSegment[] = [];
  /** With int8 quantisation: the codes of `segments[i]` row for row. */
  private readonly codeSegments: CodeSegment[] | undefined;
  private readonly rowSlots: Int32Array[] = [];
  private readonly entries: Array<IndexEntry | undefined> = [];
  /** Where each slot's row is ({@link placeOf}), for the HNSW space: flat, so the graph does not chase entries. */
  private slotPlaces = new Int32Array(0);
  private readonly freeSlots: number[] = [];
  /** Slots of the records not in {@link base} (written since it was loaded). */
  private readonly ids = new Map<string, number>();
  /**
   * The records loaded from a base file, as slots `0..base.count)`: found through its id table,
   * their entries built only when a record is read or changed (see {@link entryAt}).
   */
  private base: RecordBase | undefined;
  /** 1 where the base record of a slot was deleted (its slot may hold a newer record since). */
  private baseGone = new Uint8Array(0);
  private baseLive = 0;
  private readonly tagIndex = new TagIndex(() => this.liveSlots());
  private readonly scan: ParallelScanOptions | undefined;
  private readonly segmentRows: number | undefined;
  /** Worker scans see rows that do not move: mutations wait for them (see {@link exclusive}). */
  private readonly gate = new ScanGate();
  /** Segment lanes of worker scans (lane 0 is the calling thread's). */
  private readonly lanes: ScanLanes | undefined;
  /** The HNSW graph, when on (see {@link SimpleVectorIndexOptions.hnsw}). */
  private readonly ann: AnnIndex | undefined;
  /** @internal Scans run on the calling thread and on the scan pool, for tests and benchmarks. */
  readonly scanCounts = { callingThread: 0, workers: 0 };

  constructor(
    readonly dimensions: number,
    options: VectorIndexOptions = {},
  ) {
    this.codeSegments = options.quantization === 'int8' ? [] : undefined;
    this.scan = options.scan;
    this.segmentRows = options.segmentRows;
    this.lanes = options.scan ? new ScanLanes(1, WORKER_LANES) : undefined;
    if (options.hnsw) {
      const space = new SlotSpace(this.segments, () => this.slotPlaces, dimensions);
      this.ann = new AnnIndex(
        {
          space,
          size: () => this.size,
          liveSlots: () => this.liveSlots(),
          keyOf: (slot) => ({ id: this.idOf(slot), check: this.checkOf(slot) }),
          resolve: (id, check) => {
            const slot = this.slotOf(id);
            return slot !== undefined && this.checkOf(slot) === check ? slot : undefined;
          },
        },
        options.hnsw,
        options.annFile,
        options.logger,
      );
    }
  }

  /** crc32 of a slot's stored unit vector: names its version in the HNSW file. */
  private checkOf(slot: number): number {
    const place = this.slotPlaces[slot]!;
    const row = this.segments[segmentOfPlace(place)]!.rowView(rowOfPlace(place), this.dimensions);
    return crc32(new Uint8Array(row.buffer, row.byteOffset, row.byteLength));
  }

  /** The slot of record `id`, if it is here. */
  private slotOf(id: string): number | undefined {
    const slot = this.ids.get(id);
    if (slot !== undefined || !this.base) return slot;
    const at = this.base.find(id);
    return at >= 0 && this.baseGone[at] === 0 ? at : undefined;
  }

  /** The entry of a live slot, built from the base when it is a base record not read yet. */
  private entryAt(slot: number): IndexEntry {
    const entry = this.entries[slot];
    if (entry) return entry;
    const base = this.base!;
    const place = this.slotPlaces[slot]!;
    const built: IndexEntry = {
      id: base.idAt(slot),
      tags: base.tagsAt(slot),
      payloadJson: base.payloadAt(slot),
      norm: base.norms[slot]!,
      segment: segmentOfPlace(place),
      row: rowOfPlace(place),
    };
    this.entries[slot] = built;
    return built;
  }

  /** The id of a live slot (without building its entry). */
  private idOf(slot: number): string {
    return this.entries[slot]?.id ?? this.base!.idAt(slot);
  }

  /** Every live slot: the base's not deleted, then the others. */
  private *liveSlots(): Iterable<number> {
    const gone = this.baseGone;
    for (let slot = 0; slot < gone.length; slot++) if (gone[slot] === 0) yield slot;
    yield* this.ids.values();
  }

  /**
   * Starts the HNSW graph when it is on and the index has reached its `minRecords` (loading its
   * file, then building the rest in the background); call after writes and after a load.
   */
  startAnn(): Promise<void> {
    return this.ann?.start() ?? Promise.resolve();
  }

  /** @internal State of the HNSW graph (zeros and not ready when off). */
  annStatus(): AnnStatus {
    return this.ann?.status() ?? { nodes: 0, pending: 0, ready: false };
  }

  /** @internal Resolves when the HNSW graph has nothing pending (and its last save finished). */
  annIdle(): Promise<void> {
    return this.ann?.idle() ?? Promise.resolve();
  }

  /** @internal Counters of the HNSW graph: nodes inserted, nodes loaded from the file, graph searches. */
  get annCounts(): { inserted: number; loaded: number; searches: number } {
    return this.ann?.counts ?? { inserted: 0, loaded: 0, searches: 0 };
  }

  /** Stops the HNSW background build; `save`: write the graph first if it changed. */
  async closeAnn(save: boolean): Promise<void> {
    if (!this.ann) return;
    if (save) await this.ann.close();
    else await this.ann.stopWithoutSaving();
  }

  /** @internal The pool worker scans run on, if any. */
  get scanPool(): ScanPool | undefined {
    return this.scan?.pool;
  }

  /**
   * Runs a mutation ({@link upsert}, {@link delete}, a log catch-up) once no worker scan runs;
   * scans that arrive meanwhile start after it. Every mutation of an index whose searches may be
   * in flight goes through here.
   */
  exclusive<T>(mutate: () => T | Promise<T>): Promise<T> {
    return this.gate.write(mutate);
  }

  /** How vectors are scanned: 'int8' codes then exact rescoring, or 'none' (float32 only). */
  get quantization(): 'none' | 'int8' {
    return this.codeSegments ? 'int8' : 'none';
  }

  get size(): number {
    return this.ids.size + this.baseLive;
  }

  has(id: string): boolean {
    return this.slotOf(id) !== undefined;
  }

  /** Inserts or replaces a record. */
  upsert(id: string, vector: ArrayLike<number>, tags: Tags, payloadJson: string): void {
    const norm = l2norm(vector);
    // The unit vector is written straight into its row (no temporary array per record).
    const existing = this.slotOf(id);
    if (existing !== undefined) {
      const entry = this.entryAt(existing);
      const segment = this.segments[entry.segment]!;
      segment.writeNormalised(entry.row, vector, norm);
      this.codeSegments?.[entry.segment]!.write(entry.row, segment.rowView(entry.row, this.dimensions));
      this.tagIndex.remove(existing, entry.tags);
      entry.tags = tags;
      entry.payloadJson = payloadJson;
      entry.norm = norm;
      this.tagIndex.add(existing, tags);
      this.ann?.upserted(existing);
      return;
    }
    const segmentIndex = this.segmentWithRoom();
    const segment = this.segments[segmentIndex]!;
    const row = segment.appendNormalised(vector, norm);
    this.codeSegments?.[segmentIndex]!.append(segment.rowView(row, this.dimensions));
    const slot = this.freeSlots.pop() ?? this.entries.length;
    this.entries[slot] = { id, tags, payloadJson, norm, segment: segmentIndex, row };
    this.setPlace(slot, segmentIndex, row);
    this.rowSlots[segmentIndex]![row] = slot;
    this.ids.set(id, slot);
    this.tagIndex.add(slot, tags);
    this.ann?.upserted(slot);
  }

  private setPlace(slot: number, segment: number, row: number): void {
    if (slot >= this.slotPlaces.length) {
      const grown = new Int32Array(Math.max(1024, slot + 1, this.slotPlaces.length * 2));
      grown.set(this.slotPlaces);
      this.slotPlaces = grown;
    }
    this.slotPlaces[slot] = placeOf(segment, row);
  }

  /** Removes a record; false when it was not there. */
  delete(id: string): boolean {
    const slot = this.slotOf(id);
    if (slot === undefined) return false;
    this.ann?.deleting(slot);
    const entry = this.entryAt(slot);
    const segment = this.segments[entry.segment]!;
    const slots = this.rowSlots[entry.segment]!;
    const moved = segment.removeBySwap(entry.row);
    this.codeSegments?.[entry.segment]!.removeBySwap(entry.row);
    if (moved !== entry.row) {
      const movedSlot = slots[moved]!;
      slots[entry.row] = movedSlot;
      const movedEntry = this.entries[movedSlot];
      if (movedEntry) movedEntry.row = entry.row;
      this.setPlace(movedSlot, entry.segment, entry.row);
    }
    this.tagIndex.remove(slot, entry.tags);
    this.entries[slot] = undefined;
    this.freeSlots.push(slot);
    if (this.ids.get(id) === slot) this.ids.delete(id);
    else {
      this.baseGone[slot] = 1; // a base record: its id stays in the base's table, marked gone
      this.baseLive--;
    }
    return true;
  }

  /** The record with this id, if any. */
  entry(id: string): IndexEntry | undefined {
    const slot = this.slotOf(id);
    return slot === undefined ? undefined : this.entryAt(slot);
  }

  /** The vector as given (unit vector times its norm). */
  vectorOf(entry: IndexEntry): Float32Array {
    const unit = this.segments[entry.segment]!.read(entry.row, this.dimensions);
    for (let i = 0; i < unit.length; i++) unit[i] = unit[i]! * entry.norm;
    return unit;
  }

  /** Every live record, in no particular order. */
  *all(): Iterable<IndexEntry> {
    for (const slot of this.liveSlots()) yield this.entryAt(slot);
  }

  /** Records matching the filters, in id order, at most `limit` (`<= 0`: all). */
  list(filters: readonly TagFilter[] | undefined, limit: number): IndexEntry[] {
    const matched = this.tagIndex.match(filters);
    const slots = matched === 'all' ? this.liveSlots() : matched;
    const out: IndexEntry[] = [];
    for (const slot of slots) out.push(this.entryAt(slot));
    out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return limit > 0 ? out.slice(0, limit) : out;
  }

  /**
   * Exact top-k by cosine similarity, most relevant first (ties by id). A full scan of an index
   * of at least the scan threshold runs on the worker threads (the calling thread stays free);
   * anything smaller runs here, synchronously.
   */
  async search(query: ArrayLike<number>, options: IndexSearchOptions): Promise<Array<[IndexHit, number]>> {
    if (this.size === 0 || options.limit <= 0) return [];
    const norm = l2norm(query);
    const unit = new Float32Array(this.dimensions);
    if (norm > 0) for (let i = 0; i < this.dimensions; i++) unit[i] = query[i]! / norm;
    const matched = this.tagIndex.match(options.filters);
    const ann = this.ann;
    if (ann?.ready && (matched === 'all' || matched.size >= ann.exactBelow)) return this.searchGraph(ann, unit, matched, options);
    const few = matched !== 'all' && matched.size * FEW_MATCHES < this.size;
    if (!few && this.scan && this.size * this.dimensions >= this.scan.threshold) {
      return this.gate.read(() => this.searchOnWorkers(unit, options));
    }
    this.scanCounts.callingThread++;
    const top = new TopK(options.limit, this.bySlotId);
    const min = options.minRelevance;
    for (const segment of this.segments) if (segment.count > 0) segment.setQuery(unit);

    if (few) {
      // Few matches: score only their rows.
      for (const slot of matched) {
        const place = this.slotPlaces[slot]!;
        const score = this.segments[segmentOfPlace(place)]!.scoreRow(rowOfPlace(place));
        if (score >= min && score >= top.threshold) top.push(score, slot);
      }
    } else if (this.codeSegments) {
      this.searchCodes(unit, matched, min, top);
    } else {
      for (let s = 0; s < this.segments.length; s++) this.scanSegment(s, matched, min, top);
    }
    return this.ranked(top, options.withVectors);
  }

  /**
   * Approximate top-k through the HNSW graph (filters applied during the walk), merged with the
   * exact scores of the slots not in the graph yet; every score is the exact float32 cosine.
   */
  private searchGraph(
    ann: AnnIndex,
    unit: Float32Array,
    matched: ReadonlySet<number> | 'all',
    options: IndexSearchOptions,
  ): Array<[IndexHit, number]> {
    const query = ann.space.queryOfVector(unit);
    const accept = matched === 'all' ? undefined : (slot: number) => matched.has(slot);
    const min = options.minRelevance;
    const top = new TopK(options.limit, this.bySlotId);
    for (const [slot, s] of ann.search(query, options.limit, accept)) if (s >= min && s >= top.threshold) top.push(s, slot);
    for (const slot of ann.pendingSlots()) {
      if (accept && !accept(slot)) continue;
      const s = query.score(slot);
      if (s >= min && s >= top.threshold) top.push(s, slot);
    }
    return this.ranked(top, options.withVectors);
  }

  /** Orders two slots of equal score by their records' ids (the TopK tie-break). */
  private readonly bySlotId = (a: number, b: number): number => compareRecordIds(this.idOf(a), this.idOf(b));

  /**
   * The kept records, most relevant first (ties by id), copied now: the caller reads them after
   * the search let writes run again (an await later), when rows may have moved.
   */
  private ranked(top: TopK, withVectors: boolean | undefined): Array<[IndexHit, number]> {
    return top
      .sorted()
      .map(([slot, score]): [IndexHit, number] => [this.hitOf(this.entryAt(slot), withVectors), Math.max(-1, Math.min(1, score))])
      .sort((a, b) => b[1] - a[1] || (a[0].id < b[0].id ? -1 : a[0].id > b[0].id ? 1 : 0));
  }

  /** A copy of a record as it is now (see {@link IndexHit}). */
  hitOf(entry: IndexEntry, withVectors: boolean | undefined): IndexHit {
    return { id: entry.id, tags: entry.tags, payloadJson: entry.payloadJson, vector: withVectors ? this.vectorOf(entry) : undefined };
  }

  /**
   * A full scan on the pool (inside the gate: rows stay still), in a lane of its own: the rows of
   * every segment are split across the workers, and each segment's scores are merged here as
   * soon as its parts are done.
   */
  private async searchOnWorkers(unit: Float32Array, options: IndexSearchOptions): Promise<Array<[IndexHit, number]>> {
    const lane = await this.lanes!.acquire();
    try {
      this.scanCounts.workers++;
      const matched = this.tagIndex.match(options.filters); // as of now: a write may have run while waiting
      const top = new TopK(options.limit, this.bySlotId);
      const live: number[] = [];
      for (let s = 0; s < this.segments.length; s++) if (this.segments[s]!.count > 0) live.push(s);
      for (const s of live) this.segments[s]!.setQuery(unit, lane);
      if (this.codeSegments) await this.searchCodesOnWorkers(unit, live, matched, options.minRelevance, top, lane);
      else {
        const pool = this.scan!.pool;
        const done = scanOnPool(
          pool,
          live.map((s) => {
            const segment = this.segments[s]!;
            return { memory: segment.memory, count: segment.count, task: (part) => segment.scanTask(lane, part) };
          }),
          pool.threads,
        );
        try {
          for (let i = 0; i < live.length; i++) {
            await done[i];
            this.collect(live[i]!, this.segments[live[i]!]!.scores(lane), matched, options.minRelevance, top);
          }
        } finally {
          await settled(done); // the lane is reused only once no worker writes into it
        }
      }
      return this.ranked(top, options.withVectors);
    } finally {
      this.lanes!.release(lane);
    }
  }

  /** Int8 search with the code scans on the pool, then selection and exact rescoring here (see {@link searchCodes}). */
  private async searchCodesOnWorkers(
    unit: Float32Array,
    live: readonly number[],
    matched: ReadonlySet<number> | 'all',
    min: number,
    top: TopK,
    lane: number,
  ): Promise<void> {
    const codeSegments = this.codeSegments!;
    const query = quantizeQuery(unit, codeSegments[0]!.codeBytes);
    for (const s of live) codeSegments[s]!.setQuery(query, lane);
    const pool = this.scan!.pool;
    const done = scanOnPool(
      pool,
      live.map((s) => {
        const codes = codeSegments[s]!;
        return { memory: codes.memory, count: codes.count, task: (part) => codes.scanTask(lane, part, query) };
      }),
      pool.threads,
    );
    try {
      await Promise.all(done);
    } finally {
      await settled(done);
    }
    this.selectCodes(query, matched, min, top, lane, false);
  }

  /** Float32 scan of one segment (its query already set) into `top`, on the calling thread. */
  private scanSegment(s: number, matched: ReadonlySet<number> | 'all', min: number, top: TopK): void {
    const segment = this.segments[s]!;
    if (segment.count === 0) return;
    this.collect(s, segment.scoreAll(), matched, min, top);
  }

  /** Pushes the rows of segment `s` whose `scores` pass `min` and the filters into `top`. */
  private collect(s: number, scores: Float32Array, matched: ReadonlySet<number> | 'all', min: number, top: TopK): void {
    const slots = this.rowSlots[s]!;
    // The threshold only changes on push: keep it in a local so the loop stays tight.
    let threshold = top.threshold;
    for (let r = 0; r < scores.length; r++) {
      const score = scores[r]!;
      if (score < min || score < threshold) continue;
      const slot = slots[r]!;
      if (matched !== 'all' && !matched.has(slot)) continue;
      top.push(score, slot);
      threshold = top.threshold;
    }
  }

  /**
   * Int8 search, exact. Every approximate score is within `bound` of the exact one, so with A the
   * k-th best approximate score among the rows that may match, k rows score at least A - bound
   * exactly, and a row whose approximate score is below A - 2 * bound cannot be in the top k.
   * One pass over the codes keeps the rows above that cut (its running value only rises), then
   * only those are rescored in float32.
   */
  private searchCodes(unit: Float32Array, matched: ReadonlySet<number> | 'all', min: number, top: TopK): void {
    this.selectCodes(quantizeQuery(unit, this.codeSegments![0]!.codeBytes), matched, min, top, 0, true);
  }

  /**
   * The selection and rescoring of {@link searchCodes}, with the code scores of `lane` computed
   * here (`scan`) or already there (worker scans).
   */
  private selectCodes(
    query: QuantizedQuery,
    matched: ReadonlySet<number> | 'all',
    min: number,
    top: TopK,
    lane: number,
    scan: boolean,
  ): void {
    const codeSegments = this.codeSegments!;
    let maxScale = 0;
    for (const codes of codeSegments) if (codes.count > 0) maxScale = Math.max(maxScale, codes.maxScale);
    const bound = approximationBound(maxScale, query);
    // A row below min - bound cannot reach min exactly.
    const floor = min - bound;
    const approximate = new TopK(top.k);
    const kept: number[] = [];
    const keptScores: number[] = [];
    let cut = floor;
    for (let s = 0; s < codeSegments.length; s++) {
      const codes = codeSegments[s]!;
      if (codes.count === 0) continue;
      const scores = scan ? codes.scoreAll(query, lane) : codes.scores(lane);
      const slots = this.rowSlots[s]!;
      for (let r = 0; r < scores.length; r++) {
        const score = scores[r]!;
        if (score < cut) continue;
        const slot = slots[r]!;
        if (matched !== 'all' && !matched.has(slot)) continue;
        kept.push(slot);
        keptScores.push(score);
        if (score > approximate.threshold) {
          approximate.push(score, slot);
          cut = Math.max(floor, approximate.threshold - 2 * bound);
        }
      }
    }
    for (let i = 0; i < kept.length; i++) if (keptScores[i]! >= cut) this.rescore(kept[i]!, min, top, lane);
  }

  /** Scores a record exactly (its segment's query set in `lane`) into `top`. */
  private rescore(slot: number, min: number, top: TopK, lane: number): void {
    const place = this.slotPlaces[slot]!;
    const score = this.segments[segmentOfPlace(place)]!.scoreRow(rowOfPlace(place), lane);
    if (score >= min && score >= top.threshold) top.push(score, slot);
  }

  /**
   * Loads the records of a base file into this index, which must be empty: the rows (and codes,
   * when the file has codes of this encoding; else they are encoded here) are read straight into
   * the segments, the records become slots `0..count)` with their entries built on first use,
   * and the tag index takes the file's postings.
   */
  async loadBase(base: RecordBase, postings: Iterable<[string, string | null, Uint32Array]>, rows: BaseRows): Promise<void> {
    if (this.entries.length > 0) throw new Error('a base loads into an empty index only');
    const n = base.count;
    const rowBytes = strideOf(this.dimensions) * 4;
    if (rows.rowBytes !== rowBytes) {
      throw new EngineError('storage_corrupt', `a base file holds rows of ${rows.rowBytes} bytes, this index ${rowBytes}`, {
        ofStore: true,
      });
    }
    // Codes of another layout are encoded again from the rows.
    const storedCodes = rows.codes?.rowBytes === codeStrideOf(this.dimensions) ? rows.codes : undefined;
    for (let first = 0; first < n; ) {
      const s = this.segmentWithRoom();
      const segment = this.segments[s]!;
      const codes = this.codeSegments?.[s];
      const start = segment.count;
      const take = Math.min(segment.capacity - start, n - first);
      await segment.appendRowsFrom(take, (view) => rows.readRows(first * rowBytes, view));
      if (codes && storedCodes) await codes.appendRowsFrom(take, (view) => storedCodes.read(first * codes.codeStride, view));
      else if (codes) for (let r = start; r < start + take; r++) codes.append(segment.rowView(r, this.dimensions));
      const slots = this.rowSlots[s]!;
      for (let r = 0; r < take; r++) {
        slots[start + r] = first + r;
        this.setPlace(first + r, s, start + r);
      }
      first += take;
    }
    for (let slot = 0; slot < n; slot++) this.entries.push(undefined);
    this.base = base;
    this.baseGone = new Uint8Array(n);
    this.baseLive = n;
    for (const [key, value, slots] of postings) if (slots.length > 0) this.tagIndex.addSlots(key, value, slots);
    if (this.ann) for (let slot = 0; slot < n; slot++) this.ann.upserted(slot);
  }

  /**
   * The live records as a base file is written from them (see `writeBaseFile`), in the order of
   * their rows; `hasText` tells from a payload's JSON whether it may hold partition text. Valid
   * until the next write.
   */
  baseSource(hasText: (payloadJson: string) => boolean): BaseSource {
    const order = new Int32Array(this.size);
    let n = 0;
    for (let s = 0; s < this.segments.length; s++) {
      const slots = this.rowSlots[s]!;
      for (let r = 0; r < this.segments[s]!.count; r++) order[n++] = slots[r]!;
    }
    const position = new Int32Array(this.entries.length);
    for (let i = 0; i < n; i++) position[order[i]!] = i;
    const base = this.base;
    const segments = this.segments;
    const codeSegments = this.codeSegments;
    const entries = this.entries;
    const tagIndex = this.tagIndex;
    return {
      dimensions: this.dimensions,
      count: n,
      rowBytes: strideOf(this.dimensions) * 4,
      rowRegions: () => segments.map((segment) => segment.rowBytes()),
      codes: codeSegments && {
        encoding: CODE_ENCODING,
        rowBytes: codeStrideOf(this.dimensions),
        regions: () => codeSegments.map((codes) => codes.rowBytes()),
      },
      idAt: (i) => this.idOf(order[i]!),
      tagsJsonAt: (i) => {
        const entry = entries[order[i]!];
        return entry ? JSON.stringify(entry.tags) : base!.tags.bytesAt(order[i]!);
      },
      payloadJsonAt: (i) => entries[order[i]!]?.payloadJson ?? base!.payloads.bytesAt(order[i]!),
      normAt: (i) => entries[order[i]!]?.norm ?? base!.norms[order[i]!]!,
      hasTextAt: (i) => {
        const entry = entries[order[i]!];
        return entry ? hasText(entry.payloadJson) : base!.hasText[order[i]!] === 1;
      },
      *postings() {
        for (const [key, value, slots] of tagIndex.postings()) {
          const positions = new Uint32Array(slots.size);
          let k = 0;
          for (const slot of slots) positions[k++] = position[slot]!;
          yield [key, value, positions];
        }
      },
    };
  }

  private segmentWithRoom(): number {
    for (let i = this.segments.length - 1; i >= 0; i--) if (!this.segments[i]!.full) return i;
    const lanes = this.scan ? 1 + WORKER_LANES : 1;
    if (this.segments.length >= MAX_PLACED_SEGMENTS) {
      throw new EngineError('content_too_large', `a SimpleVectorDb index holds at most ${MAX_PLACED_SEGMENTS} segments of vectors`);
    }
    const prefault = this.scan ? prefaultOn(this.scan.pool) : undefined;
    const segment = new VectorSegment(this.dimensions, lanes, prefault, this.segmentRows);
    this.segments.push(segment);
    this.codeSegments?.push(new CodeSegment(this.dimensions, segment.capacity, lanes, prefault));
    this.rowSlots.push(new Int32Array(segment.capacity));
    return this.segments.length - 1;
  }
}
