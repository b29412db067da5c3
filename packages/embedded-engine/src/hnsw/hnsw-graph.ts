import { NeighborHeap } from './neighbor-heap.js';
import { seededRandom } from './seeded-random.js';
import { VisitedSet } from './visited-set.js';

/** Construction and search parameters of an {@link HnswGraph}. */
export interface HnswOptions {
  /** Links per node on the upper levels (level 0 keeps twice as many). Default 16. */
  m?: number;
  /** Candidates considered when linking a new node. Default 200. */
  efConstruction?: number;
  /** Candidates kept while searching (raised to k when smaller). Default 128. */
  efSearch?: number;
  /** Seed of the level generator: the same inserts in the same order give the same graph. Default 1. */
  seed?: number;
  /**
   * Fill a new node's list (and lists repaired after a removal) back up with pruned candidates
   * after the diversity heuristic (keepPrunedConnections of Malkov & Yashunin, alg. 4). Lists
   * that overflow on a back-link are re-pruned by the heuristic alone, as in hnswlib: filling
   * them too costs ~60% more similarity calls per insert for no recall gain. Default true.
   */
  keepPrunedConnections?: boolean;
}

/** How the graph reads similarities (higher = closer; cosine of unit vectors). */
export interface HnswSpace {
  /** Similarity between two nodes already in the graph (or being inserted). */
  between(a: number, b: number): number;
  /** The similarities of a node's own vector to other nodes (used while that node is linked). */
  queryOf(node: number): HnswQuery;
}

/** Similarities of one query to nodes. */
export interface HnswQuery {
  /** Similarity to one node. */
  score(node: number): number;
  /** Similarities to `nodes[0..n)` into `out[0..n)`, as {@link score} gives them (one batch: faster). */
  scoreMany(nodes: Int32Array, n: number, out: Float64Array): void;
}

/** A query that scores batches one node at a time. */
export function queryOfScore(score: (node: number) => number): HnswQuery {
  return {
    score,
    scoreMany(nodes, n, out) {
      for (let i = 0; i < n; i++) out[i] = score(nodes[i]!);
    },
  };
}

/** Options of {@link HnswGraph.search}. */
export interface HnswSearchOptions {
  /** Candidates kept (default: the graph's efSearch, at least k). */
  ef?: number;
  /** Nodes for which this is false guide the walk but are never returned. */
  accept?: (node: number) => boolean;
}

const ABSENT = -1;
const MAX_LEVEL = 30;

/**
 * A hierarchical navigable small world graph (Malkov & Yashunin) over integer node ids for
 * approximate top-k by similarity. Vectors stay with the caller: the graph reads them through
 * {@link HnswSpace.between} and a per-search {@link HnswQuery}.
 *
 * Storage: one Int8Array of levels (-1 = absent), level-0 links in one Int32Array
 * (`[count, ...2M links]` per node), upper-level links in one Int32Array per node that has any
 * (`[count, ...M links]` per level). Removal is real: the removed node's neighbours are re-linked
 * with the heuristic; links other nodes still hold to it are skipped (and dropped when their
 * list is next rewritten).
 */
export class HnswGraph {
  readonly m: number;
  readonly efConstruction: number;
  readonly efSearch: number;
  private readonly maxLinks0: number;
  private readonly stride0: number;
  private readonly levelMultiplier: number;
  private readonly keepPruned: boolean;
  private readonly random: () => number;
  private levels = new Int8Array(0);
  private links0 = new Int32Array(0);
  private upper: Array<Int32Array | undefined> = [];
  private entry = ABSENT;
  private topLevel = ABSENT;
  private count = 0;
  private readonly visited = new VisitedSet();
  private readonly candidates = new NeighborHeap();
  private readonly results = new NeighborHeap();
  // scratch lists: found nodes best first, heuristic input and output
  private foundNodes = new Int32Array(256);
  private foundScores = new Float64Array(256);
  private pickNodes = new Int32Array(256);
  private pickScores = new Float64Array(256);
  // one node's unvisited neighbours, scored in one batch
  private readonly batchNodes: Int32Array;
  private readonly batchScores: Float64Array;
  /** Output of selectNeighbors: indices into its input. */
  private readonly selected: Int32Array;
  private readonly linkScores: Float64Array;
  private readonly prunedAt: Int32Array;
  /** Sink of the reads that bring the next candidate's links into cache (see searchLayer). */
  private touched = 0;

  constructor(
    private readonly space: HnswSpace,
    options: HnswOptions = {},
  ) {
    this.m = Math.max(2, Math.floor(options.m ?? 16));
    this.efConstruction = Math.max(this.m, Math.floor(options.efConstruction ?? 200));
    this.efSearch = Math.max(1, Math.floor(options.efSearch ?? 128));
    this.keepPruned = options.keepPrunedConnections ?? true;
    this.maxLinks0 = this.m * 2;
    this.stride0 = this.maxLinks0 + 1;
    this.levelMultiplier = 1 / Math.log(this.m);
    this.random = seededRandom(options.seed ?? 1);
    this.selected = new Int32Array(this.maxLinks0);
    this.linkScores = new Float64Array(this.maxLinks0);
    this.prunedAt = new Int32Array(this.maxLinks0 + 1);
    this.batchNodes = new Int32Array(this.maxLinks0 + 1);
    this.batchScores = new Float64Array(this.maxLinks0 + 1);
  }

  /** Nodes in the graph. */
  get size(): number {
    return this.count;
  }

  /** One more than the largest node id the storage holds room for. */
  get capacity(): number {
    return this.levels.length;
  }

  /** The node searches start from (-1 when empty). */
  get entryPoint(): number {
    return this.entry;
  }

  has(node: number): boolean {
    return node >= 0 && node < this.levels.length && this.levels[node]! >= 0;
  }

  /** Highest level of a node (-1 when absent). */
  levelOf(node: number): number {
    return node >= 0 && node < this.levels.length ? this.levels[node]! : ABSENT;
  }

  /**
   * A node's links on a level, a view valid until the graph changes (may name removed nodes);
   * empty when the node is absent or below that level.
   */
  neighbors(node: number, level: number): Int32Array {
    if (level < 0 || level > this.levelOf(node)) return new Int32Array(0);
    const list = this.listOf(node, level);
    const base = this.baseOf(node, level);
    return list.subarray(base + 1, base + 1 + list[base]!);
  }

  /**
   * Adds a node whose vector `space.between` can already read. A node already present is
   * removed first (its vector may have changed).
   */
  insert(node: number): void {
    if (!Number.isInteger(node) || node < 0 || node > 0x7ffffffe) throw new RangeError(`HNSW node ids are non-negative int32, got ${node}`);
    if (this.has(node)) this.remove(node);
    const level = Math.min(MAX_LEVEL, Math.floor(-Math.log(1 - this.random()) * this.levelMultiplier));
    this.place(node, level);
    if (this.entry === ABSENT) {
      this.entry = node;
      this.topLevel = level;
      return;
    }
    // A stale link to this id (a reused slot) must not make the node its own neighbour: the
    // greedy descent skips it and the layer searches find it visited.
    const query = this.space.queryOf(node);
    let ep = this.entry;
    let epScore = query.score(ep);
    for (let lc = this.topLevel; lc > level; lc--) {
      [ep, epScore] = this.greedy(query, ep, epScore, lc, node);
    }
    let seedCount = 1;
    this.foundNodes[0] = ep;
    this.foundScores[0] = epScore;
    for (let lc = Math.min(level, this.topLevel); lc >= 0; lc--) {
      this.visited.next(this.levels.length);
      this.visited.visit(node);
      this.candidates.clear();
      this.results.clear();
      for (let i = 0; i < seedCount; i++) {
        const seed = this.foundNodes[i]!;
        this.visited.visit(seed);
        this.candidates.push(this.foundScores[i]!, seed);
        this.results.push(-this.foundScores[i]!, seed);
      }
      this.searchLayer(query, lc, this.efConstruction, undefined);
      seedCount = this.drainResults();
      const picked = this.selectNeighbors(this.foundNodes, this.foundScores, seedCount, this.m, this.keepPruned);
      const list = this.listOf(node, lc);
      const base = this.baseOf(node, lc);
      list[base] = picked;
      for (let i = 0; i < picked; i++) {
        const at = this.selected[i]!;
        list[base + 1 + i] = this.foundNodes[at]!;
        this.linkScores[i] = this.foundScores[at]!;
      }
      // Linking back rewrites the scratch lists but not the node's own list or linkScores.
      for (let i = 0; i < picked; i++) this.linkBack(list[base + 1 + i]!, node, this.linkScores[i]!, lc);
    }
    if (level > this.topLevel) {
      this.entry = node;
      this.topLevel = level;
    }
  }

  /** Removes a node; its neighbours are re-linked around it. False when it was not there. */
  remove(node: number): boolean {
    if (!this.has(node)) return false;
    const level = this.levels[node]!;
    this.levels[node] = ABSENT;
    this.count--;
    for (let lc = 0; lc <= level; lc++) this.detach(node, lc);
    this.links0[node * this.stride0] = 0;
    this.upper[node] = undefined;
    if (this.entry === node) this.electEntry();
    return true;
  }

  /**
   * Top-k nodes by similarity to the query, best first. With `accept`, rejected nodes are
   * walked through but not returned, and the walk goes on until `ef` accepted nodes are found
   * or no candidate is left. Not re-entrant: `query` and `accept` must not use this graph.
   */
  search(query: HnswQuery, k: number, options: HnswSearchOptions = {}): Array<[node: number, score: number]> {
    if (this.count === 0 || k <= 0) return [];
    const ef = Math.max(k, Math.floor(options.ef ?? this.efSearch));
    let ep = this.entry;
    let epScore = query.score(ep);
    for (let lc = this.topLevel; lc > 0; lc--) [ep, epScore] = this.greedy(query, ep, epScore, lc, ABSENT);
    this.visited.next(this.levels.length);
    this.visited.visit(ep);
    this.candidates.clear();
    this.results.clear();
    this.candidates.push(epScore, ep);
    const accept = options.accept;
    if (!accept || accept(ep)) this.results.push(-epScore, ep);
    this.searchLayer(query, 0, ef, accept);
    const found = this.drainResults();
    const out: Array<[number, number]> = [];
    for (let i = 0; i < found && i < k; i++) out.push([this.foundNodes[i]!, this.foundScores[i]!]);
    return out;
  }

  /** Makes room for node ids below `capacity` at once (the storage otherwise doubles as ids grow). */
  reserve(capacity: number): void {
    if (capacity <= this.levels.length) return;
    const levels = new Int8Array(capacity).fill(ABSENT);
    levels.set(this.levels);
    const links0 = new Int32Array(capacity * this.stride0);
    links0.set(this.links0);
    this.levels = levels;
    this.links0 = links0;
    // Grown by push so the array stays packed (setting length would make it sparse).
    for (let i = this.upper.length; i < capacity; i++) this.upper.push(undefined);
  }

  /** @internal Makes room for `node` and gives it a level with empty link lists (used by decoding). */
  place(node: number, level: number): void {
    this.ensureCapacity(node + 1);
    this.levels[node] = level;
    this.links0[node * this.stride0] = 0;
    this.upper[node] = level > 0 ? new Int32Array(level * (this.m + 1)) : undefined;
    this.count++;
  }

  /** @internal Sets a placed node's links on a level to the first `count` of `links` (used by decoding). */
  setNeighbors(node: number, level: number, links: ArrayLike<number>, count = links.length): void {
    const list = this.listOf(node, level);
    const base = this.baseOf(node, level);
    const max = level === 0 ? this.maxLinks0 : this.m;
    if (count > max) throw new RangeError(`HNSW node ${node} has ${count} links on level ${level} (max ${max})`);
    list[base] = count;
    for (let i = 0; i < count; i++) list[base + 1 + i] = links[i]!;
  }

  /** @internal Removes nodes placed only to carry their links, re-linking around them (used by decoding). */
  removePlaceholders(nodes: readonly number[]): void {
    const levels = nodes.map((n) => this.levels[n]!);
    for (const n of nodes) {
      this.levels[n] = ABSENT;
      this.count--;
    }
    nodes.forEach((n, i) => {
      for (let lc = 0; lc <= levels[i]!; lc++) this.detach(n, lc);
    });
    for (const n of nodes) {
      this.links0[n * this.stride0] = 0;
      this.upper[n] = undefined;
    }
    if (!this.has(this.entry)) this.electEntry();
  }

  /** @internal Sets the entry point (used by decoding); the highest node when not present. */
  setEntryPoint(node: number): void {
    if (this.has(node)) {
      this.entry = node;
      this.topLevel = this.levels[node]!;
      for (let i = 0; i < this.levels.length; i++) {
        if (this.levels[i]! > this.topLevel) {
          this.entry = i;
          this.topLevel = this.levels[i]!;
        }
      }
    } else this.electEntry();
  }

  private listOf(node: number, level: number): Int32Array {
    return level === 0 ? this.links0 : this.upper[node]!;
  }

  private baseOf(node: number, level: number): number {
    return level === 0 ? node * this.stride0 : (level - 1) * (this.m + 1);
  }

  /** Hill-climbs one level from `ep` (never to `skip`); returns the closest node found and its score. */
  private greedy(query: HnswQuery, ep: number, epScore: number, level: number, skip: number): [number, number] {
    const levels = this.levels;
    const batch = this.batchNodes;
    const scores = this.batchScores;
    let changed = true;
    while (changed) {
      changed = false;
      const list = this.upper[ep]!;
      const base = (level - 1) * (this.m + 1);
      const n = list[base]!;
      let b = 0;
      for (let i = 1; i <= n; i++) {
        const other = list[base + i]!;
        if (levels[other]! >= level && other !== skip) batch[b++] = other;
      }
      query.scoreMany(batch, b, scores);
      for (let i = 0; i < b; i++) {
        if (scores[i]! > epScore) {
          epScore = scores[i]!;
          ep = batch[i]!;
          changed = true;
        }
      }
    }
    return [ep, epScore];
  }

  /**
   * Best-first walk of one level from the seeds already in `candidates`/`results` (visited
   * marked). `results` ends with at most `ef` accepted nodes (keys are negated scores).
   */
  private searchLayer(query: HnswQuery, level: number, ef: number, accept: ((node: number) => boolean) | undefined): void {
    const candidates = this.candidates;
    const results = this.results;
    const visited = this.visited;
    const levels = this.levels;
    const stride0 = this.stride0;
    const upperBase = (level - 1) * (this.m + 1);
    const batch = this.batchNodes;
    const scores = this.batchScores;
    let worst = results.size >= ef ? -results.topKey() : -Infinity;
    while (candidates.size > 0) {
      if (candidates.topKey() < worst) break;
      const current = candidates.pop();
      const list = level === 0 ? this.links0 : this.upper[current]!;
      const base = level === 0 ? current * stride0 : upperBase;
      const n = list[base]!;
      // The next candidate is most often the one on top now: reading its level-0 list here puts
      // that cache miss beside this one rather than after this node's work (JavaScript has no
      // prefetch; a large graph's lists are out of cache).
      if (level === 0 && candidates.size > 0) this.touched ^= list[candidates.topNode() * stride0]!;
      let b = 0;
      for (let i = 1; i <= n; i++) {
        const other = list[base + i]!;
        if (levels[other]! >= level && visited.visit(other)) batch[b++] = other;
      }
      if (b === 0) continue;
      query.scoreMany(batch, b, scores);
      for (let i = 0; i < b; i++) {
        const other = batch[i]!;
        const score = scores[i]!;
        if (score <= worst) continue;
        candidates.push(score, other);
        if (accept !== undefined && !accept(other)) continue;
        results.push(-score, other);
        if (results.size > ef) results.pop();
        if (results.size >= ef) worst = -results.topKey();
      }
    }
  }

  /** Moves `results` into foundNodes/foundScores, best first; returns how many. */
  private drainResults(): number {
    const n = this.results.size;
    if (this.foundNodes.length < n) {
      this.foundNodes = new Int32Array(n * 2);
      this.foundScores = new Float64Array(n * 2);
    }
    for (let i = n - 1; i >= 0; i--) {
      this.foundScores[i] = -this.results.topKey();
      this.foundNodes[i] = this.results.pop();
    }
    return n;
  }

  /**
   * The neighbour-selection heuristic (alg. 4): from candidates sorted best first, keeps those
   * closer to the base than to any kept one, then (`fill`) fills up with the pruned ones.
   * Writes the kept indices into `selected`; returns how many.
   */
  private selectNeighbors(nodes: Int32Array, scores: Float64Array, n: number, max: number, fill: boolean): number {
    if (n <= max) {
      for (let i = 0; i < n; i++) this.selected[i] = i;
      return n;
    }
    const space = this.space;
    const selected = this.selected;
    let picked = 0;
    let pruned = 0;
    for (let i = 0; i < n && picked < max; i++) {
      const node = nodes[i]!;
      const score = scores[i]!;
      let keep = true;
      for (let j = 0; j < picked; j++) {
        if (space.between(node, nodes[selected[j]!]!) > score) {
          keep = false;
          break;
        }
      }
      if (keep) selected[picked++] = i;
      else if (pruned < this.prunedAt.length) this.prunedAt[pruned++] = i;
    }
    if (fill) for (let i = 0; i < pruned && picked < max; i++) selected[picked++] = this.prunedAt[i]!;
    return picked;
  }

  /** Adds `node` to `target`'s list on a level, re-selecting the list when it is full. */
  private linkBack(target: number, node: number, score: number, level: number): void {
    const list = this.listOf(target, level);
    const base = this.baseOf(target, level);
    const max = level === 0 ? this.maxLinks0 : this.m;
    let n = this.compact(list, base, level);
    for (let i = 1; i <= n; i++) if (list[base + i] === node) return;
    if (n < max) {
      list[base + 1 + n] = node;
      list[base] = n + 1;
      return;
    }
    this.ensurePick(n + 1);
    for (let i = 0; i < n; i++) this.pickNodes[i] = list[base + 1 + i]!;
    this.space.queryOf(target).scoreMany(this.pickNodes, n, this.pickScores);
    this.pickNodes[n] = node;
    this.pickScores[n] = score;
    n++;
    sortBestFirst(this.pickNodes, this.pickScores, n);
    const picked = this.selectNeighbors(this.pickNodes, this.pickScores, n, max, false);
    list[base] = picked;
    for (let i = 0; i < picked; i++) list[base + 1 + i] = this.pickNodes[this.selected[i]!]!;
  }

  /** Drops links to absent nodes from a list; returns the new count. */
  private compact(list: Int32Array, base: number, level: number): number {
    const levels = this.levels;
    const n = list[base]!;
    let kept = 0;
    for (let i = 1; i <= n; i++) {
      const other = list[base + i]!;
      if (levels[other]! >= level) list[base + 1 + kept++] = other;
    }
    list[base] = kept;
    return kept;
  }

  /**
   * Re-links the neighbours of a node already marked absent on one level. Each neighbour that
   * linked to it drops that link (and any other to a node gone) and fills the freed places from
   * the removed node's links: the best candidate that passes the diversity test against the
   * links it keeps, else (keepPruned) the best candidate. One scored candidate list per
   * neighbour, so a removal costs about as much as an insert.
   */
  private detach(removed: number, level: number): void {
    const removedList = this.listOf(removed, level);
    const removedBase = this.baseOf(removed, level);
    const degree = removedList[removedBase]!;
    const around = removedList.slice(removedBase + 1, removedBase + 1 + degree);
    const levels = this.levels;
    const space = this.space;
    const max = level === 0 ? this.maxLinks0 : this.m;
    this.ensurePick(degree);
    for (let a = 0; a < degree; a++) {
      const target = around[a]!;
      if (levels[target]! < level) continue;
      const list = this.listOf(target, level);
      const base = this.baseOf(target, level);
      const before = list[base]!;
      let linked = false;
      for (let i = 1; i <= before; i++) if (list[base + i] === removed) linked = true;
      if (!linked) continue;
      let count = this.compact(list, base, level);
      let freed = before - count;
      this.visited.next(this.levels.length);
      this.visited.visit(target);
      for (let i = 1; i <= count; i++) this.visited.visit(list[base + i]!);
      let c = 0;
      for (let i = 0; i < degree; i++) {
        const other = around[i]!;
        if (levels[other]! >= level && this.visited.visit(other)) this.pickNodes[c++] = other;
      }
      space.queryOf(target).scoreMany(this.pickNodes, c, this.pickScores);
      sortBestFirst(this.pickNodes, this.pickScores, c);
      for (let i = 0; i < c && freed > 0 && count < max; i++) {
        const other = this.pickNodes[i]!;
        const score = this.pickScores[i]!;
        let diverse = true;
        for (let j = 1; j <= count; j++) {
          if (space.between(other, list[base + j]!) > score) {
            diverse = false;
            break;
          }
        }
        if (!diverse) continue;
        list[base + 1 + count++] = other;
        this.pickScores[i] = Number.NEGATIVE_INFINITY; // taken
        freed--;
      }
      if (this.keepPruned) {
        for (let i = 0; i < c && freed > 0 && count < max; i++) {
          if (this.pickScores[i] === Number.NEGATIVE_INFINITY) continue;
          list[base + 1 + count++] = this.pickNodes[i]!;
          freed--;
        }
      }
      list[base] = count;
    }
  }

  /** Makes the highest-level present node the entry point. */
  private electEntry(): void {
    this.entry = ABSENT;
    this.topLevel = ABSENT;
    const levels = this.levels;
    for (let i = 0; i < levels.length; i++) {
      if (levels[i]! > this.topLevel) {
        this.topLevel = levels[i]!;
        this.entry = i;
      }
    }
  }

  private ensurePick(n: number): void {
    if (this.pickNodes.length >= n) return;
    this.pickNodes = new Int32Array(n * 2);
    this.pickScores = new Float64Array(n * 2);
  }

  private ensureCapacity(n: number): void {
    if (n > this.levels.length) this.reserve(Math.max(n, this.levels.length * 2, 1024));
  }
}

/** Insertion sort of parallel arrays by descending score (lists are short). */
function sortBestFirst(nodes: Int32Array, scores: Float64Array, n: number): void {
  for (let i = 1; i < n; i++) {
    const node = nodes[i]!;
    const score = scores[i]!;
    let j = i - 1;
    while (j >= 0 && scores[j]! < score) {
      nodes[j + 1] = nodes[j]!;
      scores[j + 1] = scores[j]!;
      j--;
    }
    nodes[j + 1] = node;
    scores[j + 1] = score;
  }
}
