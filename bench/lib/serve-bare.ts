// Child process: the bare baselines. `json`: Bun.serve answering the JSON /health answers.
// `insert`: Bun.serve that parses the JSON body and commits one INSERT into a SQLite file with
// Parley's pragmas (WAL, synchronous=NORMAL), answering 202. `inbound`: Bun.serve that parses an
// inbound message ({from, type, text}) and commits, in one transaction, what Parley's inbound
// pipeline writes: the contact (upsert by phone), the conversation (upsert, last message, unread),
// the message and a webhook outbox row, answering 200 with the message id. Prints {port, pid}.
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { benchDir } from "./tmp.ts";

const mode = process.argv[2] ?? "json";
let fetchFn: (req: Request) => Response | Promise<Response>;
if (mode === "insert") {
  const db = new Database(join(benchDir("parley-bare-"), "bare.db"), { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("CREATE TABLE m (id TEXT PRIMARY KEY, session_id TEXT, phone TEXT, body TEXT, status TEXT, created_at INTEGER)");
  const ins = db.prepare("INSERT INTO m VALUES (?, ?, ?, ?, 'queued', ?)");
  fetchFn = async (req) => {
    const b = (await req.json()) as { session_id: string; to: string; body: string };
    const id = Bun.randomUUIDv7();
    const now = Date.now();
    ins.run(id, b.session_id, b.to, b.body, now);
    return Response.json({ success: true, data: { id, status: "queued", sessionId: b.session_id, to: b.to, type: "text", createdAt: new Date(now).toISOString() } }, { status: 202 });
  };
} else if (mode === "inbound") {
  const db = new Database(join(benchDir("parley-bare-"), "bare.db"), { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec(`CREATE TABLE contacts (id TEXT PRIMARY KEY, workspace_id TEXT, phone TEXT, push_name TEXT, last_inbound_at INTEGER, created_at INTEGER, updated_at INTEGER);
    CREATE UNIQUE INDEX contacts_phone ON contacts (workspace_id, phone);
    CREATE TABLE conversations (id TEXT PRIMARY KEY, workspace_id TEXT, session_id TEXT, phone TEXT, contact_id TEXT, last_message_at INTEGER, last_preview TEXT, unread INTEGER, updated_at INTEGER);
    CREATE UNIQUE INDEX conversations_peer ON conversations (workspace_id, session_id, phone);
    CREATE TABLE messages (id TEXT PRIMARY KEY, workspace_id TEXT, session_id TEXT, conversation_id TEXT, network_message_id TEXT, direction TEXT, phone TEXT, type TEXT, body TEXT, status TEXT, created_at INTEGER);
    CREATE INDEX messages_conv ON messages (conversation_id, created_at);
    CREATE UNIQUE INDEX messages_net ON messages (session_id, network_message_id);
    CREATE TABLE deliveries (id TEXT PRIMARY KEY, webhook_id TEXT, event TEXT, payload TEXT, status TEXT, next_attempt_at INTEGER);
    CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);`);
  const contact = db.prepare(
    `INSERT INTO contacts VALUES (?, 'ws', ?, ?, ?, ?, ?) ON CONFLICT (workspace_id, phone) DO UPDATE SET push_name = coalesce(excluded.push_name, push_name), last_inbound_at = excluded.last_inbound_at, updated_at = excluded.updated_at RETURNING id`,
  );
  const conversation = db.prepare(
    `INSERT INTO conversations VALUES (?, 'ws', 'session', ?, ?, ?, ?, 1, ?) ON CONFLICT (workspace_id, session_id, phone) DO UPDATE SET last_message_at = excluded.last_message_at, last_preview = excluded.last_preview, unread = unread + 1, updated_at = excluded.updated_at RETURNING id`,
  );
  const message = db.prepare("INSERT INTO messages VALUES (?, 'ws', 'session', ?, ?, 'inbound', ?, ?, ?, 'received', ?)");
  const delivery = db.prepare("INSERT INTO deliveries VALUES (?, 'hook', 'message_received', ?, 'pending', ?)");
  const store = db.transaction((b: { from: string; type: string; text: string; pushName?: string }) => {
    const now = Date.now();
    const contactId = (contact.get(Bun.randomUUIDv7(), b.from, b.pushName ?? null, now, now, now) as { id: string }).id;
    const conversationId = (conversation.get(Bun.randomUUIDv7(), b.from, contactId, now, b.text.slice(0, 100), now) as { id: string }).id;
    const id = Bun.randomUUIDv7();
    message.run(id, conversationId, Bun.randomUUIDv7(), b.from, b.type, b.text, now);
    const payload = JSON.stringify({ event: "message_received", timestamp: new Date(now).toISOString(), data: { messageId: id, conversationId, from: b.from, type: b.type, text: b.text } });
    delivery.run(Bun.randomUUIDv7(), payload, now);
    return id;
  });
  fetchFn = async (req) => {
    const b = (await req.json()) as { from: string; type: string; text: string };
    const messageId = store(b);
    return Response.json({ success: true, data: { networkMessageId: "x", messageId } });
  };
} else {
  fetchFn = () => Response.json({ success: true, data: { status: "ok", version: "0.0.0", uptimeSeconds: 1 } });
}
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: fetchFn });
console.log(JSON.stringify({ port: server.port, pid: process.pid }));
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
