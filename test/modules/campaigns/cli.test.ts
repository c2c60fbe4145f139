import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bar, formatDuration, RateMeter, timeLeft } from "../../../cli/campaigns-progress.ts";
import { ACCESS_TTL_SECONDS, signToken, tokenKeys } from "../../../src/auth/tokens.ts";
import { systemClock } from "../../../src/clock.ts";
import { loadConfig } from "../../../src/config.ts";
import { BUN, ROOT, spawnServer, type ChildServer } from "../../helpers/process.ts";
import { seedWorkspace } from "../sessions/operator-fixtures.ts";

describe("watch figures", () => {
  const stats = { total: 100, pending: 40, sent: 30, delivered: 10, read: 5, failed: 5, skipped: 10 };
  test("rate over the window and time left", () => {
    const m = new RateMeter(60_000);
    expect(m.perMinute()).toBeNull();
    m.add(0, 0);
    m.add(30_000, 10);
    expect(m.perMinute()).toBe(20);
    expect(timeLeft(stats, 20)).toBe("2m 00s");
    expect(timeLeft(stats, null)).toBeNull();
    expect(timeLeft({ ...stats, pending: 0 }, null)).toBe("0s");
    expect(formatDuration(3_725_000)).toBe("1h 02m");
  });
  test("the bar fills with what is done", () => {
    expect(bar(stats, 10)).toBe("██████░░░░");
    expect(bar({ ...stats, total: 0 }, 4)).toBe("░░░░");
  });
});

const MAIN = join(ROOT, "src/main.ts");
let dataDir: string;
let server: ChildServer;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "parley-campaign-cli-"));
  server = await spawnServer({ dataDir, env: { PARLEY_SEND_MIN_GAP_MS: "10", PARLEY_SEND_JITTER_MS: "0", PARLEY_JOB_POLL_MS: "50", PARLEY_LOG_LEVEL: "warn" } });
});
afterAll(async () => {
  await server.stop();
});

async function parley(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn([BUN, MAIN, ...args, "--data-dir", dataDir, "--url", server.url], { stdout: "pipe", stderr: "pipe", env: { ...process.env, PARLEY_JWT_SECRET: "" } });
  const [out, err] = [await new Response(p.stdout).text(), await new Response(p.stderr).text()];
  return { code: await p.exited, out, err };
}

test("parley campaigns list shows the campaign; watch follows it and exits 0 when it completes", async () => {
  const { workspaceId, ownerId } = seedWorkspace(dataDir, "Shop");
  const db = new Database(join(dataDir, "parley.db"));
  db.exec("PRAGMA busy_timeout = 5000");
  const ids: string[] = [];
  for (let i = 0; i < 15; i++) {
    const id = Bun.randomUUIDv7();
    ids.push(id);
    db.query("INSERT INTO contacts (id, workspace_id, phone, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)").run(id, workspaceId, `9174${String(1_000_000 + i).padStart(8, "0")}`, `C${i}`, Date.now(), Date.now());
  }
  db.close();
  const { jwtSecret } = JSON.parse(readFileSync(join(dataDir, "secrets.json"), "utf8"));
  const token = await signToken(tokenKeys(loadConfig({}), jwtSecret), systemClock, { sub: ownerId, tenant: workspaceId, role: "owner", typ: "access" }, ACCESS_TTL_SECONDS);
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(server.url + path, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    return (await res.json()) as any;
  };
  const sid = (await call("POST", "/api/v1/chatapp", { name: "shop" })).data.id;
  await call("POST", `/api/v1/chatapp/${sid}/connect`);
  await call("POST", `/api/sim/sessions/${sid}/scan`, { phoneNumber: "919811100000" });
  for (let i = 0; i < 200 && (await call("GET", `/api/v1/chatapp/${sid}/status`)).data.status !== "connected"; i++) await Bun.sleep(25);
  const created = await call("POST", "/api/v1/campaigns", {
    name: "Launch",
    sessionIds: [sid],
    message: { type: "text", body: "Hi {{name}}" },
    audience: { contactIds: ids },
    pacing: { perMinute: 300, jitterPercent: 0, warmup: false },
  });
  const id = created.data.id as string;

  const listed = await parley("campaigns", "list", "--json");
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.out)).toContainEqual(expect.objectContaining({ id, name: "Launch", status: "draft", workspace: "Shop" }));

  await call("POST", `/api/v1/campaigns/${id}/start`);
  const watched = await parley("campaigns", "watch", id, "--interval", "0.2");
  expect(watched.err).toBe("");
  expect(watched.code).toBe(0);
  expect(watched.out).toContain('Campaign "Launch"');
  expect(watched.out).toContain("completed");
  expect(watched.out).toContain("sent 15");

  const table = await parley("campaigns", "list", "--workspace", "Shop");
  expect(table.out).toMatch(new RegExp(`${id}\\s+completed\\s+15\\s+15`));
  const unknown = await parley("campaigns", "watch", Bun.randomUUIDv7());
  expect(unknown.code).toBe(1);
  expect(unknown.err).toContain("no campaign");
}, 60_000);
