import type { Command } from "commander";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { signToken, tokenKeys } from "../src/auth/tokens.ts";
import { systemClock } from "../src/clock.ts";
import type { Config } from "../src/config.ts";
import { configOrExit, DATA_DIR_FLAG } from "./context.ts";
import { hostUrl } from "../src/http/public-url.ts";
import { announcedUrl } from "../src/db/lock.ts";
import { noDatabase } from "./operator.ts";
import { assertNotNewer, NewerDatabaseError } from "../src/db/migrate.ts";
import { openStore } from "../src/db/open.ts";
import type { DB } from "../src/db/store.ts";

// Operator commands (docs/operations.md) draw their power from the data directory (the database and the JWT
// secret in secrets.json). They act on the running server over its public API with a
// short-lived token minted for the workspace's owner; the server has no back door.

/** Thrown for anything the operator must read; the command prints it and exits non-zero. */
export class OperatorError extends Error {}

export interface OperatorFlags {
  dataDir?: string;
  url?: string;
  workspace?: string;
}

export interface Operator {
  config: Config;
  url: string;
  /** where `url` came from, for messages */
  urlFrom: string;
  /** the data dir's store, read beside the running server (closed by runOperator) */
  db: DB;
  jwtSecret: string;
}

export interface SessionRef {
  id: string;
  name: string;
  workspaceId: string;
  status: string;
  phoneNumber: string | null;
}

/** Adds the flags every operator command takes. */
export function operatorOptions(cmd: Command): Command {
  return cmd
    .option(...DATA_DIR_FLAG)
    .option("--url <url>", "the running server (default http://<host>:<port> from PARLEY_HOST/PARLEY_PORT)")
    .option("-w, --workspace <workspace>", "workspace id or name (when a session name is not unique)");
}

/** Stores opened by the operator action that runs now: runOperator closes them (a PostgreSQL pool would keep the process alive). */
const openStores = new Set<DB>();

/** Opens the data dir's store (only to read it) and reads the signing secret. */
export async function openOperator(flags: OperatorFlags): Promise<Operator> {
  const config = configOrExit({ dataDir: flags.dataDir });
  // a mistyped --data-dir must not quietly create an empty database beside the real one
  if (!config.databaseUrl && !existsSync(join(config.dataDir, "parley.db"))) throw new OperatorError(noDatabase(config.dataDir));
  // SQLite: a read-only connection beside a live server, as before the store (no pragmas, no checkpoint)
  const db = openStore(config, { readonly: true });
  try {
    await assertNotNewer(db); // its tables may no longer be what this build reads
    const op = { ...locateServer(flags, config), db, jwtSecret: await signingSecret(config, db) };
    openStores.add(db);
    return op;
  } catch (err) {
    await db.close();
    throw err;
  }
}

/** The JWT secret: the setting, else the data dir's secrets.json (SQLite) or the database's (PostgreSQL). */
async function signingSecret(config: Config, db: DB): Promise<string> {
  if (config.jwtSecret) return config.jwtSecret;
  if (db.engine === "postgres") {
    const row = await db.prepare<{ value: string }>("SELECT value FROM instance_secrets WHERE name = 'jwtSecret'").get();
    if (!row) throw new OperatorError("the database holds no JWT secret yet: start the server once, or set PARLEY_JWT_SECRET");
    return row.value;
  }
  const secretsPath = join(config.dataDir, "secrets.json");
  if (!existsSync(secretsPath)) throw new OperatorError(`no ${secretsPath}: start the server once, or set PARLEY_JWT_SECRET`);
  const jwtSecret = (JSON.parse(readFileSync(secretsPath, "utf8")) as { jwtSecret?: string }).jwtSecret;
  if (!jwtSecret) throw new OperatorError(`${secretsPath} has no jwtSecret`);
  return jwtSecret;
}

/** Which server to call, and where that came from (for failure messages). */
function locateServer(flags: OperatorFlags, config: Config): { config: Config; url: string; urlFrom: string } {
  // --url, else where the data dir's running server said it listens, else PARLEY_HOST/PARLEY_PORT
  const announced = announcedUrl(config.dataDir);
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  const url = (flags.url ?? announced ?? hostUrl(host, config.port)).replace(/\/+$/, "");
  const urlFrom = flags.url ? "--url" : announced ? `${config.dataDir}/parley.url` : `no server announced itself in ${config.dataDir}; PARLEY_HOST/PARLEY_PORT`;
  return { config, url, urlFrom };
}

/** A workspace by id or name; without one, the only workspace there is. */
export async function findWorkspace(op: Pick<Operator, "db">, ref: string | undefined): Promise<{ id: string; name: string }> {
  const all = await op.db.prepare<{ id: string; name: string }>("SELECT id, name FROM workspaces ORDER BY created_at").all();
  const hits = ref ? all.filter((w) => w.id === ref || w.name === ref) : all;
  if (hits.length === 1) return hits[0]!;
  if (!hits.length) throw new OperatorError(ref ? `no workspace "${ref}"` : "there is no workspace yet");
  throw new OperatorError(`${ref ? `"${ref}" names` : "there are"} ${hits.length} workspaces; choose one with --workspace <id>`);
}

/** A session by id or name (names are unique per workspace only). */
export async function findSession(op: Pick<Operator, "db">, ref: string, workspace?: string): Promise<SessionRef> {
  const wsId = workspace ? (await findWorkspace(op, workspace)).id : null;
  const rows = await op.db
    .prepare<SessionRef>(
      `SELECT id, name, workspace_id AS "workspaceId", status, phone_number AS "phoneNumber" FROM chat_sessions
       WHERE (id = ?1 OR name = ?1) AND (CAST(?2 AS TEXT) IS NULL OR workspace_id = ?2)`,
    )
    .all(ref, wsId);
  if (rows.length === 1) return rows[0]!;
  if (!rows.length) throw new OperatorError(`no session "${ref}"${workspace ? ` in workspace ${workspace}` : ""}`);
  throw new OperatorError(`${rows.length} sessions are named "${ref}"; add --workspace <id> or use the session id`);
}

/** A short-lived access token of the workspace's owner, signed with the data dir's secret. */
export async function ownerToken(op: Operator, workspaceId: string, ttlSeconds = 300): Promise<string> {
  const owner = await op.db.prepare<{ id: string }>("SELECT id FROM users WHERE workspace_id = ? AND role = 'owner' LIMIT 1").get(workspaceId);
  if (!owner) throw new OperatorError(`workspace ${workspaceId} has no owner`);
  return signToken(tokenKeys(op.config, op.jwtSecret), systemClock, { sub: owner.id, tenant: workspaceId, role: "owner", typ: "access" }, ttlSeconds);
}

/** Calls the running server; failures become OperatorError with the server's message. */
export async function callApi(op: Operator, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  let res: Response;
  try {
    res = await fetch(op.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new OperatorError(`cannot reach the server: ${method} ${op.url}${path} failed (${(err as Error).message}); URL from ${op.urlFrom}. Is it running with this data dir? (--url)`);
  }
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed };
}

/** Like callApi, but anything other than 2xx is an OperatorError. */
export async function requireApi(op: Operator, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const r = await callApi(op, token, method, path, body);
  if (r.status >= 200 && r.status < 300) return r.body;
  const detail = r.body?.errors ? ` ${JSON.stringify(r.body.errors)}` : "";
  throw new OperatorError(`${r.body?.code ?? r.status}: ${r.body?.message ?? "request failed"}${detail} (${method} ${op.url}${path})`);
}

/** Runs an operator action: OperatorError prints one line and exits 1. The stores it opened are closed after it. */
export async function runOperator(action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (err) {
    if (err instanceof OperatorError || err instanceof NewerDatabaseError) {
      process.stderr.write(`parley: ${err.message}\n`);
      process.exit(err instanceof NewerDatabaseError ? 2 : 1);
    }
    throw err;
  } finally {
    const stores = [...openStores];
    openStores.clear();
    await Promise.all(stores.map((db) => db.close()));
  }
}

const phone = (p: string | null) => (p ? `+${p}` : "-");

/** `parley sessions list|create|connect|disconnect`. */
export function sessionsCommand(program: Command): void {
  const sessions = program.command("sessions").description("list, create, connect and disconnect sessions (operator, via the data dir)");

  operatorOptions(sessions.command("list").description("list sessions (all workspaces, or one with --workspace)"))
    .option("--json", "print JSON")
    .action((flags: OperatorFlags & { json?: boolean }) =>
      runOperator(async () => {
        const op = await openOperator(flags);
        const wsId = flags.workspace ? (await findWorkspace(op, flags.workspace)).id : null;
        const rows = await op.db
          .prepare<SessionRef & { workspace: string }>(
            `SELECT s.id, s.name, s.workspace_id AS "workspaceId", w.name AS workspace, s.status, s.phone_number AS "phoneNumber"
             FROM chat_sessions s JOIN workspaces w ON w.id = s.workspace_id
             WHERE CAST(?1 AS TEXT) IS NULL OR s.workspace_id = ?1 ORDER BY w.name, s.created_at`,
          )
          .all(wsId);
        if (flags.json) return void process.stdout.write(JSON.stringify(rows, null, 2) + "\n");
        if (!rows.length) return void process.stdout.write("no sessions\n");
        for (const r of rows) process.stdout.write(`${r.id}  ${r.status.padEnd(12)} ${phone(r.phoneNumber).padEnd(17)} ${r.name}  (${r.workspace})\n`);
      }),
    );

  operatorOptions(sessions.command("create <name>").description("create a session in a workspace")).action((name: string, flags: OperatorFlags) =>
    runOperator(async () => {
      const op = await openOperator(flags);
      const ws = await findWorkspace(op, flags.workspace);
      const body = await requireApi(op, await ownerToken(op, ws.id), "POST", "/api/v1/chatapp", { name });
      process.stdout.write(`created ${body.data.id} "${body.data.name}" in ${ws.name}; pair it with: parley pair ${body.data.id}\n`);
    }),
  );

  operatorOptions(sessions.command("connect <session>").description("start linking (QR) or reconnect; see also `parley pair`")).action(
    (ref: string, flags: OperatorFlags) =>
      runOperator(async () => {
        const op = await openOperator(flags);
        const s = await findSession(op, ref, flags.workspace);
        const body = await requireApi(op, await ownerToken(op, s.workspaceId), "POST", `/api/v1/chatapp/${s.id}/connect`);
        process.stdout.write(`${s.name}: ${body.data.status}${body.data.phoneNumber ? ` ${phone(body.data.phoneNumber)}` : ""}\n`);
      }),
  );

  operatorOptions(sessions.command("disconnect <session>").description("disconnect and unlink a session")).action((ref: string, flags: OperatorFlags) =>
    runOperator(async () => {
      const op = await openOperator(flags);
      const s = await findSession(op, ref, flags.workspace);
      await requireApi(op, await ownerToken(op, s.workspaceId), "POST", `/api/v1/chatapp/${s.id}/disconnect`);
      process.stdout.write(`${s.name}: disconnected\n`);
    }),
  );
}
