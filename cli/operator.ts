import type { Command } from "commander";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { signToken, tokenKeys } from "../src/auth/tokens.ts";
import { systemClock } from "../src/clock.ts";
import type { Config } from "../src/config.ts";
import { announcedUrl } from "../src/db/lock.ts";
import { assertNotNewer } from "../src/db/migrate.ts";
import { openStore } from "../src/db/open.ts";
import { assertReachable } from "../src/db/reachable.ts";
import type { DB } from "../src/db/store.ts";
import { hostUrl } from "../src/http/public-url.ts";
import { ownerId } from "../src/modules/users/repo.ts";
import { configOrExit, DATA_DIR_FLAG } from "./context.ts";
import { noDatabase, OperatorError, openStores } from "./data-dir.ts";

export { isoOrNull, noDatabase, OperatorError, readDataDir, runOperator, table, withDataDir, type OperatorContext } from "./data-dir.ts";

/*
 * The one framework of the operator commands. Their power comes from the data directory: its
 * database, and the JWT secret in secrets.json. Two ways in, one runner (runOperator):
 * - withDataDir: the data dir's store, migrated, for commands that change rows themselves
 *   (workspaces, users, keys, plans);
 * - openOperator: the store read-only beside the running server, plus the server's URL and a
 *   short-lived owner token, for commands that act through the server's public API (sessions,
 *   pair, campaigns, contacts, sim): the server has no back door.
 * withDataDir, runOperator and the table printer live in data-dir.ts (commands that only work
 * on the database load that alone).
 */

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




/** Adds the flags every operator command takes. */
export function operatorOptions(cmd: Command): Command {
  return cmd
    .option(...DATA_DIR_FLAG)
    .option("--url <url>", "the running server (default http://<host>:<port> from PARLEY_HOST/PARLEY_PORT)")
    .option("-w, --workspace <workspace>", "workspace id or name (when a session name is not unique)");
}


/** Opens the data dir's store (only to read it) and reads the signing secret. */
export async function openOperator(flags: OperatorFlags): Promise<Operator> {
  const config = await configOrExit({ dataDir: flags.dataDir });
  // a mistyped --data-dir must not quietly create an empty database beside the real one
  if (!config.databaseUrl && !existsSync(join(config.dataDir, "parley.db"))) throw new OperatorError(noDatabase(config.dataDir));
  // SQLite: a read-only connection beside a live server, as before the store (no pragmas, no checkpoint)
  const db = openStore(config, { readonly: true });
  try {
    await assertReachable(db, config);
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

/** A short-lived access token of the workspace's owner, signed with the data dir's secret. */
export async function ownerToken(op: Operator, workspaceId: string, ttlSeconds = 300): Promise<string> {
  const owner = await ownerId(op.db, workspaceId);
  if (!owner) throw new OperatorError(`workspace ${workspaceId} has no owner`);
  return signToken(tokenKeys(op.config, op.jwtSecret), systemClock, { sub: owner, tenant: workspaceId, role: "owner", typ: "access" }, ttlSeconds);
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



