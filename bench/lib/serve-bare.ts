// Child process: the bare baselines. `json`: Bun.serve answering the JSON /health answers.
// `insert`: Bun.serve that parses the JSON body and commits one INSERT into a SQLite file with
// Parley's pragmas (WAL, synchronous=NORMAL), answering 202. Prints {port, pid}.
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
} else {
  fetchFn = () => Response.json({ success: true, data: { status: "ok", version: "0.0.0", uptimeSeconds: 1 } });
}
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: fetchFn });
console.log(JSON.stringify({ port: server.port, pid: process.pid }));
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
