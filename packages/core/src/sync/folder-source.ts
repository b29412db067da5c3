import { createHash } from 'node:crypto';
import { statSync, watch as fsWatch, type FSWatcher } from 'node:fs';
import { open, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';
import { InvalidInputError, KmError } from '../errors/km-error.js';
import { validateTags, type TagCollection } from '../models/tag-collection.js';
import { syncFileName } from './sync-file-name.js';
import type { SyncItem, SyncSource } from './sync-source.js';

/** Options of {@link folderSource}. */
export interface FolderSourceOptions {
  /** The folder to sync (relative paths are resolved against the current directory). */
  root: string;
  /** Only files whose path relative to `root` (with `/`) matches one of these globs (picomatch). @default every file */
  include?: string[];
  /** Files (and folders) whose relative path matches one of these globs are skipped. */
  exclude?: string[];
  /** Files of `.gitignore` rules read in every folder, applying to that folder and below. @default ['.gitignore', '.kmignore'] */
  ignoreFiles?: string[];
  /** Follow symbolic links (never out of `root`). @default false: links are skipped */
  followSymlinks?: boolean;
  /** Files larger than this are listed but fail to open (`content_too_large`). @default no limit */
  maxFileBytes?: number;
  /** Overrides the source id (default `folder:<absolute root>`). */
  id?: string;
  /** Tags of every item (user tags). */
  tags?: TagCollection;
  /** Files hashed at once. @default 16 */
  hashConcurrency?: number;
  /** Watch mode's quiet time after the last change before `onChange` is called. @default 300 */
  watchDebounceMs?: number;
  /** Watch mode's listing interval when the platform cannot watch the folder. @default 5000 */
  watchPollMs?: number;
}

/** Folders never walked: git's own. */
const ALWAYS_SKIPPED = new Set(['.git']);

/**
 * A local folder as a sync source: every file under `root` (recursively), minus `exclude`
 * globs, `.gitignore`/`.kmignore` rules (each applying to its folder and below) and `.git`,
 * keeping only `include` globs when given. An item's id is its path relative to `root` with `/`
 * separators, its version the SHA-256 of its content (`sha256:<hex>`), its file name the
 * file's. Symbolic links are skipped unless `followSymlinks` (and then never followed out of
 * `root`). A missing root throws `invalid_argument`, also when the listing runs (so a folder
 * gone deletes nothing). `watch` uses a recursive `fs.watch`, debounced, or polls the listing
 * where the platform cannot watch.
 *
 * ```ts
 * const report = await memory.sync(folderSource({ root: './docs', include: ['**\/*.md'], exclude: ['drafts/**'] }));
 * ```
 */
export function folderSource(options: FolderSourceOptions): SyncSource {
  if (!options || typeof options.root !== 'string' || options.root === '') {
    throw new InvalidInputError('invalid_argument', 'folderSource needs a root folder');
  }
  const root = resolve(options.root);
  checkRoot(root);
  for (const [name, globs] of [
    ['include', options.include],
    ['exclude', options.exclude],
    ['ignoreFiles', options.ignoreFiles],
  ] as const) {
    if (globs !== undefined && (!Array.isArray(globs) || globs.some((g) => typeof g !== 'string' || g === ''))) {
      throw new InvalidInputError('invalid_argument', `folderSource ${name} must be a list of non-empty strings`);
    }
  }
  if (options.maxFileBytes !== undefined && (!Number.isFinite(options.maxFileBytes) || options.maxFileBytes < 0)) {
    throw new InvalidInputError('invalid_argument', `folderSource maxFileBytes must be a number >= 0, got ${String(options.maxFileBytes)}`);
  }
  const tags = options.tags === undefined ? undefined : validateTags(options.tags);
  const id = options.id ?? `folder:${root}`;
  if (typeof id !== 'string' || id === '') throw new InvalidInputError('invalid_argument', 'folderSource id must be a non-empty string');
  const filter = new FolderFilter(root, options);
  const hashConcurrency = Math.max(1, options.hashConcurrency ?? 16);

  async function* list(signal?: AbortSignal): AsyncIterable<SyncItem> {
    checkRoot(root);
    const rootReal = await realpath(root);
    // Files are hashed a few at once, and yielded in walk order.
    const window: Promise<SyncItem>[] = [];
    try {
      for await (const file of filter.walk(rootReal, signal)) {
        const item = toItem(file, options.maxFileBytes, tags, signal);
        // Heard at once: a hash aborted while the consumer is busy elsewhere is no unhandled
        // rejection (which would stop a service); awaiting it below still throws.
        item.catch(() => undefined);
        window.push(item);
        if (window.length >= hashConcurrency) yield await window.shift()!;
      }
      while (window.length > 0) yield await window.shift()!;
    } finally {
      // A listing stopped early leaves no hash rejecting unheard.
      for (const pending of window) pending.catch(() => undefined);
    }
  }
  return {
    id,
    kind: 'folder',
    list,
    watch: (onChange: () => void, signal?: AbortSignal) => watchFolder(root, filter, onChange, options, () => list(signal), signal),
  };
}

function checkRoot(root: string): void {
  let isFolder = false;
  try {
    isFolder = statSync(root).isDirectory();
  } catch {
    throw new InvalidInputError('invalid_argument', `folder "${root}" does not exist`);
  }
  if (!isFolder) throw new InvalidInputError('invalid_argument', `"${root}" is not a folder`);
}

/** A file found by the walk. */
interface WalkedFile {
  path: string;
  relative: string;
  /** -1 when not read (only `maxFileBytes` needs it). */
  size: number;
}

/** Which paths a folder source lists: include/exclude globs, ignore files, `.git`, links. */
class FolderFilter {
  private readonly include: ((path: string) => boolean) | undefined;
  private readonly exclude: ((path: string) => boolean) | undefined;
  private readonly ignoreFiles: readonly string[];
  private readonly followSymlinks: boolean;
  /** Sizes are read only to enforce `maxFileBytes`. */
  private readonly needsSize: boolean;

  constructor(
    readonly root: string,
    options: FolderSourceOptions,
  ) {
    this.include = options.include?.length ? picomatch(options.include, { dot: true }) : undefined;
    this.exclude = options.exclude?.length ? picomatch(options.exclude, { dot: true }) : undefined;
    this.ignoreFiles = options.ignoreFiles ?? ['.gitignore', '.kmignore'];
    this.followSymlinks = options.followSymlinks ?? false;
    this.needsSize = options.maxFileBytes !== undefined;
  }

  /** Every listed file under `rootReal`, depth first, names in code-unit order. */
  async *walk(rootReal: string, signal?: AbortSignal): AsyncIterable<WalkedFile> {
    const visited = new Set<string>([rootReal]);
    const stack: { dir: string; relative: string; rules: IgnoreRules[] }[] = [{ dir: rootReal, relative: '', rules: [] }];
    while (stack.length > 0) {
      signal?.throwIfAborted();
      const { dir, relative, rules: parentRules } = stack.pop()!;
      const rules = [...parentRules];
      const own = await this.readIgnoreRules(dir, relative);
      if (own) rules.push(own);
      const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const subfolders: { dir: string; relative: string; rules: IgnoreRules[] }[] = [];
      for (const entry of entries) {
        const path = join(dir, entry.name);
        const rel = relative === '' ? entry.name : `${relative}/${entry.name}`;
        let isDir = entry.isDirectory();
        let isFile = entry.isFile();
        let size = -1;
        if (entry.isSymbolicLink()) {
          if (!this.followSymlinks) continue;
          let target: string;
          try {
            target = await realpath(path);
          } catch {
            continue; // a dangling link
          }
          if (target !== rootReal && !target.startsWith(rootReal + sep)) continue; // out of the root
          const info = await stat(target);
          isDir = info.isDirectory();
          isFile = info.isFile();
          size = info.size;
          if (isDir) {
            if (visited.has(target)) continue; // a loop
            visited.add(target);
          }
        }
        if (isDir) {
          if (ALWAYS_SKIPPED.has(entry.name) || this.isExcluded(rel, true, rules)) continue;
          subfolders.push({ dir: path, relative: rel, rules });
        } else if (isFile) {
          if (this.isExcluded(rel, false, rules)) continue;
          if (this.include && !this.include(rel)) continue;
          if (size < 0 && this.needsSize) size = (await stat(path)).size;
          yield { path, relative: rel, size };
        }
      }
      // Popped in name order.
      for (let i = subfolders.length - 1; i >= 0; i--) stack.push(subfolders[i]!);
    }
  }

  /** True when a path (relative to the root, `/` separators) is left out by `exclude`, an ignore file or `.git`. */
  isExcluded(rel: string, isDir: boolean, rules: readonly IgnoreRules[]): boolean {
    if (rel.split('/').some((segment) => ALWAYS_SKIPPED.has(segment))) return true;
    if (this.exclude?.(rel)) return true;
    // The deepest folder whose rules say anything about the path decides (as git does).
    for (let i = rules.length - 1; i >= 0; i--) {
      const r = rules[i]!;
      const local = r.base === '' ? rel : rel.slice(r.base.length + 1);
      const result = r.rules.test(isDir ? `${local}/` : local);
      if (result.ignored) return true;
      if (result.unignored) return false;
    }
    return false;
  }

  /** The rules of the ignore files of a folder, or undefined when it has none. */
  async readIgnoreRules(dir: string, relative: string): Promise<IgnoreRules | undefined> {
    let rules: Ignore | undefined;
    for (const name of this.ignoreFiles) {
      let text: string;
      try {
        text = await readFile(join(dir, name), 'utf8');
      } catch {
        continue;
      }
      rules ??= ignore();
      rules.add(text);
    }
    return rules ? { base: relative, rules } : undefined;
  }

  /** True when a changed path (relative, `/` separators) is left out: its folders' ignore files are read again. */
  async isIgnoredPath(rel: string): Promise<boolean> {
    const segments = rel.split('/').filter((s) => s !== '');
    if (segments.length === 0) return false;
    if (segments.some((segment) => ALWAYS_SKIPPED.has(segment))) return true;
    // A change to an ignore file changes what is listed.
    if (this.ignoreFiles.includes(segments[segments.length - 1]!)) return false;
    const rules: IgnoreRules[] = [];
    for (let depth = 0; depth < segments.length; depth++) {
      const relative = segments.slice(0, depth).join('/');
      const own = await this.readIgnoreRules(join(this.root, ...segments.slice(0, depth)), relative);
      if (own) rules.push(own);
      const prefix = segments.slice(0, depth + 1).join('/');
      const isLast = depth === segments.length - 1;
      if (this.isExcluded(prefix, !isLast, rules)) return true;
    }
    return false;
  }
}

interface IgnoreRules {
  /** The folder of the ignore file, relative to the root (`''` for the root). */
  base: string;
  rules: Ignore;
}

/** A walked file as a sync item: hashed now, read when opened. */
async function toItem(
  file: WalkedFile,
  maxFileBytes: number | undefined,
  tags: TagCollection | undefined,
  signal?: AbortSignal,
): Promise<SyncItem> {
  const tooLarge = maxFileBytes !== undefined && file.size > maxFileBytes;
  const version = tooLarge ? `size:${file.size}` : await hashFile(file.path, signal);
  return {
    id: file.relative,
    version,
    fileName: syncFileName(file.path),
    ...(tags ? { tags } : {}),
    async open(): Promise<Uint8Array> {
      if (tooLarge) {
        throw new KmError('content_too_large', `file "${file.relative}" is ${file.size} bytes, over the limit of ${maxFileBytes} bytes`);
      }
      return readFile(file.path);
    },
  };
}

/** Files up to this size are read whole to be hashed (fewer calls); larger ones are streamed. */
const READ_WHOLE_BYTES = 1 << 20;

/** `sha256:<hex>` of a file's content: read whole when small, streamed otherwise. */
async function hashFile(path: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size <= READ_WHOLE_BYTES) hash.update(await handle.readFile(signal ? { signal } : {}));
    else
      for await (const chunk of handle.createReadStream({ autoClose: false, ...(signal ? { signal } : {}) })) hash.update(chunk as Buffer);
  } finally {
    await handle.close();
  }
  return `sha256:${hash.digest('hex')}`;
}

/**
 * Calls `onChange` once per burst of changes under `root` (after `watchDebounceMs` of quiet),
 * ignoring changes to paths the source leaves out; polls the listing every `watchPollMs` when
 * the platform cannot watch the folder recursively.
 */
async function watchFolder(
  root: string,
  filter: FolderFilter,
  onChange: () => void,
  options: FolderSourceOptions,
  list: () => AsyncIterable<SyncItem>,
  signal?: AbortSignal,
): Promise<() => Promise<void>> {
  const debounceMs = options.watchDebounceMs ?? 300;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const fire = (): void => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      if (!stopped) onChange();
    }, debounceMs);
  };
  let watcher: FSWatcher | undefined;
  let poller: NodeJS.Timeout | undefined;
  try {
    watcher = fsWatch(root, { recursive: true }, (_event, filename) => {
      if (filename === null || filename === undefined) return fire();
      const rel = String(filename).split(sep).join('/');
      void filter.isIgnoredPath(rel).then(
        (ignored) => {
          if (!ignored) fire();
        },
        () => fire(),
      );
    });
    watcher.on('error', () => undefined);
  } catch {
    // No recursive watch here: compare listings instead.
    let last = await fingerprint(list());
    let polling = false;
    poller = setInterval(() => {
      if (polling || stopped) return;
      polling = true;
      void fingerprint(list())
        .then((now) => {
          if (now !== last) {
            last = now;
            fire();
          }
        })
        .catch(() => undefined)
        .finally(() => {
          polling = false;
        });
    }, options.watchPollMs ?? 5000);
  }
  const stop = async (): Promise<void> => {
    stopped = true;
    if (timer) clearTimeout(timer);
    if (poller) clearInterval(poller);
    watcher?.close();
  };
  signal?.addEventListener('abort', () => void stop(), { once: true });
  return stop;
}

async function fingerprint(items: AsyncIterable<SyncItem>): Promise<string> {
  const hash = createHash('sha256');
  for await (const item of items) hash.update(item.id).update('\0').update(item.version).update('\n');
  return hash.digest('hex');
}
