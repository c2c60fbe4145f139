import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ACCESS_TTL_SECONDS, signToken, tokenKeys } from "../../src/auth/tokens.ts";
import { systemClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { openStore } from "../../src/db/open.ts";
import { spawnServer, type ChildServer } from "./process.ts";

/**
 * Several real `parley serve` processes on one PostgreSQL database (a cluster on loopback),
 * each with a data dir of its own. The first starts alone (it migrates and makes the secrets),
 * the others together after it.
 */
export async function startNodes(url: string, n: number, opts: { env?: Record<string, string>; args?: string[] } = {}): Promise<ChildServer[]> {
  const env = { PARLEY_DATABASE_URL: url, ...opts.env };
  const dir = () => mkdtempSync(join(tmpdir(), "parley-node-"));
  const first = await spawnServer({ dataDir: dir(), env, args: opts.args });
  const rest = await Promise.all(Array.from({ length: n - 1 }, () => spawnServer({ dataDir: dir(), env, args: opts.args })));
  return [first, ...rest];
}

export interface SeededWorkspace {
  workspaceId: string;
  userId: string;
  /** an owner's access token, valid on every node (they share the secrets) */
  token: string;
}

/** Writes a workspace (`growth`, trialing) and its owner straight into the cluster's database. */
export async function seedWorkspace(url: string, opts: { planId?: string; status?: string } = {}): Promise<SeededWorkspace> {
  const db = openStore({ dataDir: "", databaseUrl: url, databasePoolSize: 1 });
  try {
    const workspaceId = Bun.randomUUIDv7();
    const userId = Bun.randomUUIDv7();
    const now = Date.now();
    await db
      .prepare("INSERT INTO workspaces (id, name, plan_id, subscription_status, trial_ends_at, created_at, updated_at) VALUES (?, 'Cluster', ?, ?, ?, ?, ?)")
      .run(workspaceId, opts.planId ?? "growth", opts.status ?? "trialing", now + 86_400_000, now, now);
    await db
      .prepare(
        `INSERT INTO users (id, workspace_id, email, name, password_hash, mobile, role, mobile_verified_at, email_verified_at, created_at, updated_at)
         VALUES (?, ?, ?, 'Owner', 'x', ?, 'owner', ?, ?, ?, ?)`,
      )
      .run(userId, workspaceId, `owner-${userId.slice(-12)}@cluster.test`, `9198${String(now).slice(-8)}`, now, now, now, now);
    const jwtSecret = (await db.prepare<{ value: string }>("SELECT value FROM instance_secrets WHERE name = 'jwtSecret'").get())!.value;
    const token = await signToken(tokenKeys(loadConfig({}), jwtSecret), systemClock, { sub: userId, tenant: workspaceId, role: "owner", typ: "access" }, ACCESS_TTL_SECONDS);
    return { workspaceId, userId, token };
  } finally {
    await db.close();
  }
}

export interface WsClient {
  ws: WebSocket;
  /** every event received, with the time it arrived (performance.now()) */
  events: { event: string; data: any; at: number }[];
  close(): void;
}

/** Opens /api/ws on a node and resolves once its `ready` arrives. */
export function connectWs(nodeUrl: string, token: string): Promise<WsClient> {
  const ws = new WebSocket(`${nodeUrl.replace(/^http/, "ws")}/api/ws?token=${token}`);
  const events: WsClient["events"] = [];
  return new Promise((resolve, reject) => {
    ws.onmessage = (m) => {
      const at = performance.now();
      const msg = JSON.parse(String(m.data));
      if (msg.event === "ready") resolve({ ws, events, close: () => ws.close() });
      else events.push({ event: msg.event, data: msg.data, at });
    };
    ws.onerror = () => reject(new Error("websocket failed"));
  });
}

/** A JSON request to a node with a bearer token; returns the status and the parsed body. */
export async function call(nodeUrl: string, method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${nodeUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

/** Creates a session through a node, links it with the sim network's scan, and returns its id once connected. */
export async function linkedSession(nodeUrl: string, token: string, phone: string): Promise<string> {
  const created = await call(nodeUrl, "POST", "/api/v1/chatapp", token, { name: `s-${Bun.randomUUIDv7().slice(-8)}` });
  if (created.status !== 201) throw new Error(`session not created: ${JSON.stringify(created.body)}`);
  const id = created.body.data.id as string;
  const c = await call(nodeUrl, "POST", `/api/v1/chatapp/${id}/connect`, token);
  if (c.status !== 200) throw new Error(`not connected: ${JSON.stringify(c.body)}`);
  await until(async () => (await call(nodeUrl, "POST", `/api/sim/sessions/${id}/scan`, token, { phoneNumber: phone })).status === 200);
  await until(async () => (await call(nodeUrl, "GET", `/api/v1/chatapp/${id}/status`, token)).body.data.status === "connected");
  return id;
}

/** Polls until `check` is true (throws after `timeoutMs`). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(20);
  }
}
