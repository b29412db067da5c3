import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { BSON, type Document } from 'mongodb';

// A tiny MongoDB server for request-shape tests: it speaks the wire protocol (OP_MSG 2013, and
// legacy OP_QUERY 2004 answered with OP_REPLY 1 for the handshake), records every command and
// answers from a function. It checks what the connector sends; it is not a database.

const OP_REPLY = 1;
const OP_QUERY = 2004;
const OP_MSG = 2013;

/** One command as the server received it. */
export interface RecordedCommand {
  /** The command's name, its first key (`find`, `aggregate`, `hello`…). */
  name: string;
  /** The database it ran on (`$db`, or the OP_QUERY namespace). */
  db: string;
  /** The command with JavaScript values (numbers, strings, Long as number). */
  command: Document;
  /** The same decoded with `promoteValues: false`, so BSON types (Double, Int32) stay visible. */
  raw: Document;
}

/** Answers a command; `undefined` means `{ ok: 1 }`. A promise holds the reply back until it settles. */
export type CommandAnswer = (command: RecordedCommand) => Document | undefined | Promise<Document | undefined>;

export interface MongoWireRecorder {
  /** A connection string for the driver (`directConnection=true`). */
  url: string;
  /** Commands other than the handshake and monitoring (`hello`, `isMaster`, `ping`, `endSessions`). */
  commands: RecordedCommand[];
  /** The answer function; replace it per test. */
  answer: CommandAnswer;
  close(): Promise<void>;
}

const HANDSHAKE = new Set(['hello', 'ismaster', 'isMaster', 'ping', 'endSessions', 'buildInfo', 'buildinfo']);

/**
 * The `hello` reply: the primary of a one-member replica set, as Atlas and atlas-local are (so the
 * driver sends sessions and retryable writes as it would there), without `topologyVersion`, so the
 * driver polls instead of streaming.
 */
export const HELLO_REPLY: Document = {
  ismaster: true,
  isWritablePrimary: true,
  helloOk: true,
  setName: 'km-recorder',
  setVersion: 1,
  logicalSessionTimeoutMinutes: 30,
  maxWireVersion: 25,
  minWireVersion: 0,
  maxBsonObjectSize: 16 * 1024 * 1024,
  maxMessageSizeBytes: 48_000_000,
  maxWriteBatchSize: 100_000,
  localTime: new Date(),
  ok: 1,
};

/** A cursor reply with one batch (cursor id 0: nothing more to fetch). */
export function cursorReply(ns: string, firstBatch: Document[]): Document {
  return { cursor: { id: BSON.Long.fromNumber(0), ns, firstBatch }, ok: 1 };
}

/** An error reply. */
export function errorReply(code: number, codeName: string, errmsg: string): Document {
  return { ok: 0, code, codeName, errmsg };
}

export async function startMongoWireRecorder(answer: CommandAnswer = () => undefined): Promise<MongoWireRecorder> {
  const recorder = { commands: [] as RecordedCommand[], answer } as MongoWireRecorder;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = Buffer.alloc(0);
    let replies = Promise.resolve(); // in order, one message after the other
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
        const message = pending.subarray(0, pending.readInt32LE(0));
        pending = pending.subarray(message.length);
        replies = replies
          .then(async () => {
            const bytes = await reply(recorder, message);
            if (!socket.destroyed) socket.write(bytes);
          })
          .catch(() => {
            socket.destroy(); // a message it cannot answer: the driver sees the connection close
          });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  recorder.url = `mongodb://127.0.0.1:${port}/?directConnection=true&serverSelectionTimeoutMS=2000`;
  recorder.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return recorder;
}

async function reply(recorder: MongoWireRecorder, message: Buffer): Promise<Buffer> {
  const requestId = message.readInt32LE(4);
  const opCode = message.readInt32LE(12);
  if (opCode === OP_QUERY) {
    // flags, fullCollectionName (cstring), numberToSkip, numberToReturn, query
    const nameEnd = message.indexOf(0, 20);
    const namespace = message.subarray(20, nameEnd).toString('utf8');
    const bytes = message.subarray(nameEnd + 9);
    const answered = await answerOf(recorder, decode(bytes, true), decode(bytes, false), namespace.split('.')[0] ?? 'admin');
    const body = Buffer.from(BSON.serialize(answered));
    const header = Buffer.alloc(36);
    header.writeInt32LE(36 + body.length, 0);
    header.writeInt32LE(0, 4);
    header.writeInt32LE(requestId, 8);
    header.writeInt32LE(OP_REPLY, 12);
    header.writeInt32LE(0, 16); // responseFlags
    header.writeBigInt64LE(0n, 20); // cursorID
    header.writeInt32LE(0, 28); // startingFrom
    header.writeInt32LE(1, 32); // numberReturned
    return Buffer.concat([header, body]);
  }
  if (opCode !== OP_MSG) throw new Error(`the recorder speaks OP_MSG and OP_QUERY, got opCode ${opCode}`);
  const flags = message.readUInt32LE(16);
  const end = flags & 1 ? message.length - 4 : message.length;
  let command: Document = {};
  let raw: Document = {};
  for (let at = 20; at < end; ) {
    const kind = message.readUInt8(at);
    if (kind === 0) {
      const size = message.readInt32LE(at + 1);
      const bytes = message.subarray(at + 1, at + 1 + size);
      command = { ...decode(bytes, true), ...command };
      raw = { ...decode(bytes, false), ...raw };
      at += 1 + size;
    } else {
      const size = message.readInt32LE(at + 1);
      const section = message.subarray(at + 5, at + 1 + size);
      const nameEnd = section.indexOf(0);
      const identifier = section.subarray(0, nameEnd).toString('utf8');
      const docs: Document[] = [];
      const rawDocs: Document[] = [];
      for (let d = nameEnd + 1; d < section.length; d += section.readInt32LE(d)) {
        docs.push(decode(section.subarray(d), true));
        rawDocs.push(decode(section.subarray(d), false));
      }
      command[identifier] = docs;
      raw[identifier] = rawDocs;
      at += 1 + size;
    }
  }
  const answered = await answerOf(recorder, command, raw, String(command.$db ?? 'admin'));
  const body = Buffer.from(BSON.serialize(answered));
  const header = Buffer.alloc(21);
  header.writeInt32LE(21 + body.length, 0);
  header.writeInt32LE(0, 4);
  header.writeInt32LE(requestId, 8);
  header.writeInt32LE(OP_MSG, 12);
  header.writeUInt32LE(0, 16);
  header.writeUInt8(0, 20);
  return Buffer.concat([header, body]);
}

function decode(bytes: Uint8Array, promoteValues: boolean): Document {
  return BSON.deserialize(bytes, { promoteValues, allowObjectSmallerThanBufferSize: true } as BSON.DeserializeOptions);
}

async function answerOf(recorder: MongoWireRecorder, command: Document, raw: Document, db: string): Promise<Document> {
  const name = Object.keys(command)[0] ?? '';
  if (HANDSHAKE.has(name)) return name === 'endSessions' || name === 'ping' ? { ok: 1 } : { ...HELLO_REPLY, localTime: new Date() };
  const recorded = { name, db, command, raw };
  recorder.commands.push(recorded);
  return (await recorder.answer(recorded)) ?? { ok: 1 };
}
