// Which SimpleVectorDb options the @km/core build under test has, for the vector bench: an
// option counts when it is declared in the published SimpleVectorDbOptions type (dist .d.ts) and
// a small index built with it answers a search and a filtered search. A configuration whose option
// is missing prints `n/a (<why>)` instead of figures.
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/**
 * The top-level keys of `interface <name> { ... }` in a TypeScript declaration text (nested
 * object types are skipped), or undefined when the interface is not there.
 */
export function interfaceKeys(source, name) {
  const text = withoutComments(source);
  const start = text.match(new RegExp(`interface ${name}\\b[^{]*\\{`));
  if (!start) return undefined;
  const keys = [];
  let depth = 1;
  let line = '';
  for (let i = start.index + start[0].length; i < text.length && depth > 0; i++) {
    const ch = text[i];
    if (ch === '{' || ch === '(' || ch === '[' || ch === '<') depth++;
    else if (ch === '}' || ch === ')' || ch === ']' || (ch === '>' && text[i - 1] !== '=')) depth--;
    if (ch === '\n') {
      line = '';
      continue;
    }
    line += ch;
    if (depth === 1 && ch === ':') {
      const key = line.match(/^\s*(?:readonly\s+)?([A-Za-z_$][\w$]*)\??:$/)?.[1];
      if (key) keys.push(key);
    }
  }
  return keys;
}

/** Declaration text without its comments (doc comments hold `<`, `(`, `:`). */
function withoutComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
}

/** The names an interface declaration extends (`interface A extends B, C<D> {` gives B and C). */
export function interfaceBases(source, name) {
  const text = withoutComments(source);
  const head = text.match(new RegExp(`interface ${name}\\b([^{]*)\\{`))?.[1];
  const clause = head?.match(/extends\s+(.+)$/s)?.[1];
  if (!clause) return [];
  return clause
    .replace(/<[^<>]*>/g, '')
    .split(',')
    .map((base) => base.trim().split('.').pop())
    .filter(Boolean);
}

/**
 * The keys of interface `name` and of the interfaces it extends, found in any of `texts`
 * (declaration files); undefined when no text declares it.
 */
export function declaredKeys(texts, name, seen = new Set()) {
  if (seen.has(name)) return new Set();
  seen.add(name);
  for (const text of texts) {
    const keys = interfaceKeys(text, name);
    if (!keys) continue;
    const all = new Set(keys);
    for (const base of interfaceBases(text, name)) for (const key of declaredKeys(texts, base, seen) ?? []) all.add(key);
    return all;
  }
  return undefined;
}

/** The keys of SimpleVectorDbOptions (inherited ones included) in the installed @km/core's declarations (dist/**\/*.d.ts). */
export async function declaredSimpleVectorDbOptions() {
  const dist = dirname(fileURLToPath(import.meta.resolve('@km/core')));
  const files = (await readdir(dist, { recursive: true })).filter((f) => f.endsWith('.d.ts'));
  const texts = await Promise.all(files.map((f) => readFile(join(dist, f), 'utf8')));
  return declaredKeys(texts, 'SimpleVectorDbOptions') ?? new Set();
}

/**
 * Why a SimpleVectorDb configuration cannot be measured with this build, or undefined when it
 * can: the option keys must be declared, and an index of 64 records built with the options must
 * answer a search and a filtered search.
 */
export async function whyUnavailable(core, options, declared) {
  const missing = Object.keys(options).filter((key) => !declared.has(key));
  if (missing.length > 0) return `this @km/core has no SimpleVectorDb option ${missing.join(', ')}`;
  const dims = 8;
  let db;
  try {
    db = new core.SimpleVectorDb(options);
    const records = Array.from({ length: 64 }, (_, i) => ({
      id: `p${i}`,
      vector: Float32Array.from({ length: dims }, (_, j) => Math.sin(i * 7 + j)),
      tags: { g: [String(i % 4)] },
      payload: {},
    }));
    await db.upsertBatch('probe', records);
    const found = [];
    for await (const [record] of db.getSimilarList('probe', records[5].vector, { limit: 3, minRelevance: -1 })) found.push(record.id);
    if (found[0] !== 'p5') return `probe search returned ${JSON.stringify(found)}, expected p5 first`;
    const filters = [core.MemoryFilters.byTag('g', '1')];
    for await (const [record] of db.getSimilarList('probe', records[5].vector, { limit: 3, minRelevance: -1, filters })) {
      if (record.tags.g[0] !== '1') return `probe filtered search returned ${record.id} (g=${record.tags.g})`;
    }
    return undefined;
  } catch (error) {
    return `SimpleVectorDb(${JSON.stringify(options)}) failed: ${error.message}`;
  } finally {
    await db?.close().catch(() => {});
  }
}

/** Why hnswlib-node cannot be loaded (not installed, or its add-on was not built), or undefined with the module. */
export async function loadHnswlib() {
  try {
    require.resolve('hnswlib-node');
  } catch {
    return { why: 'hnswlib-node is not installed (optional dependency of @km/bench)' };
  }
  try {
    const module = await import('hnswlib-node');
    return { hnswlib: module.default ?? module };
  } catch (error) {
    return { why: `hnswlib-node did not load (its add-on is built by @km/bench's postinstall): ${error.message.split('\n')[0]}` };
  }
}
