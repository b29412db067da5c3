// A PostgreSQL stand-in in its own process: PGlite (PostgreSQL 17 + pgvector) on a data folder,
// served over TCP. Usage: node postgres-pglite-server.mjs <data-dir> <port>. Prints "ready <url>".
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { startPgliteServer } from '@km/memorydb-postgres/testing';

const [dataDir, port] = process.argv.slice(2);
const db = await PGlite.create(dataDir, { extensions: { vector } });
const server = await startPgliteServer(db, { port: Number(port) });
process.stdout.write(`ready ${server.url}\n`);
process.on('SIGTERM', async () => {
  await server.stop();
  await db.close();
  process.exit(0);
});
