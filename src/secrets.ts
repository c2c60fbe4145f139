import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "./config.ts";
import type { DB } from "./db/store.ts";
import type { Secrets } from "./deps.ts";

const FILE = "secrets.json";

/**
 * The installation's secrets, generated on first start; configured values win. SQLite: the
 * data dir's secrets.json (mode 0600). PostgreSQL: the `instance_secrets` table, written once
 * by whichever node starts first (the others read what it wrote), and no file at all.
 */
export async function loadSecrets(config: Config, db: DB): Promise<Secrets> {
  const generated = db.engine === "postgres" ? await fromDatabase(db) : fromFile(config);
  return { ...generated, jwtSecret: config.jwtSecret ?? generated.jwtSecret };
}

function fromFile(config: Config): Secrets {
  const path = join(config.dataDir, FILE);
  let stored: Partial<Secrets> = {};
  if (existsSync(path)) stored = JSON.parse(readFileSync(path, "utf8")) as Partial<Secrets>;
  const generated: Secrets = {
    jwtSecret: stored.jwtSecret ?? randomHex(48),
    credentialKey: stored.credentialKey ?? randomHex(32),
  };
  if (generated.jwtSecret !== stored.jwtSecret || generated.credentialKey !== stored.credentialKey) {
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(path, JSON.stringify(generated, null, 2) + "\n", { mode: 0o600 });
    chmodSync(path, 0o600);
  }
  return generated;
}

async function fromDatabase(db: DB): Promise<Secrets> {
  const insert = db.prepare("INSERT INTO instance_secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING");
  await insert.run("jwtSecret", randomHex(48), Date.now());
  await insert.run("credentialKey", randomHex(32), Date.now());
  const rows = await db.prepare<{ name: string; value: string }>("SELECT name, value FROM instance_secrets").all();
  const get = (name: string) => rows.find((r) => r.name === name)!.value;
  return { jwtSecret: get("jwtSecret"), credentialKey: get("credentialKey") };
}

function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}
