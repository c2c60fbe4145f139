import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { call, connectWs, linkedSession, seedWorkspace, startNodes, until, type WsClient } from "../helpers/cluster.ts";
import { TEST_PG_URL } from "../helpers/postgres.ts";
import { ROOT, type ChildServer } from "../helpers/process.ts";

// A real restart of the PostgreSQL server under two nodes (a private server of this test, so the
// suite's own is not touched): each node's listening connection is lost and found again, and the
// events committed after the restart reach the other node's clients, in order, once each.

const PG_BIN = existsSync("/usr/lib/postgresql") ? readdirSync("/usr/lib/postgresql").sort().map((v) => `/usr/lib/postgresql/${v}/bin`).pop() : undefined;
const runnable = !!TEST_PG_URL && !!PG_BIN && process.getuid?.() === 0;
const dir = mkdtempSync(join(tmpdir(), "parley-pg-restart-"));
let nodes: ChildServer[] = [];
afterAll(async () => {
  for (const n of nodes) n.proc.kill("SIGKILL");
  if (runnable) Bun.spawnSync(["bash", join(ROOT, ".ci/postgres.sh"), "stop", dir]);
  rmSync(dir, { recursive: true, force: true });
});

function pgCtl(action: "restart"): void {
  // the server's output goes to its log: a pipe it inherited would hold this call open
  const p = Bun.spawnSync(["su", "postgres", "-c", `${PG_BIN}/pg_ctl -D '${dir}/data' -l '${dir}/log' -m fast -w ${action}`], { stderr: "pipe", stdout: "ignore" });
  if (p.exitCode !== 0) throw new Error(`pg_ctl ${action} failed: ${p.stderr.toString()}`);
}

const texts = (c: WsClient) => c.events.filter((e) => e.event === "message_received").map((e) => e.data.text as string);

test.skipIf(!runnable)("PostgreSQL only (needs PARLEY_TEST_DATABASE_URL, root and the server's binaries): after a database restart every node listens again and catches up; events reach the other node in order, once each", async () => {
  const port = 20_000 + (process.pid % 20_000);
  const started = Bun.spawnSync(["bash", join(ROOT, ".ci/postgres.sh"), "start", dir, String(port)], { stderr: "pipe", stdout: "pipe" });
  expect(started.exitCode).toBe(0);
  const url = `${started.stdout.toString().trim().replace(/\/postgres$/, "")}/postgres`;
  nodes = await startNodes(url, 2);
  const [a, b] = nodes as [ChildServer, ChildServer];
  const ws = await seedWorkspace(url);
  const onA = await connectWs(a.url, ws.token);
  const onB = await connectWs(b.url, ws.token);
  const session = await linkedSession(a.url, ws.token, "919833300001");
  await until(() => onB.events.some((e) => e.event === "session_connected"));

  const sent: string[] = [];
  const inbound = async (text: string) => {
    // right after the restart a node's pool may answer with an error once, and the session's link may
    // be coming back: the request is repeated until it is stored, every 250 ms (each try counts
    // against the member's per-minute rate limit)
    await until(async () => {
      const r = await call(a.url, "POST", `/api/sim/sessions/${session}/inbound`, ws.token, { from: "919800000003", text }).catch(() => ({ status: 0 }));
      if (r.status === 200) return true;
      await Bun.sleep(250);
      return false;
    }, 30_000);
    sent.push(text);
  };
  for (let i = 0; i < 3; i++) await inbound(`before ${i}`);
  pgCtl("restart");
  for (let i = 0; i < 10; i++) await inbound(`after ${i}`);
  await until(() => texts(onB).length >= sent.length, 30_000);
  await Bun.sleep(300);
  expect(texts(onB)).toEqual(sent);
  // the WebSockets themselves stayed open (they are the nodes', not the database's); A told its own once
  expect(texts(onA)).toEqual(sent);
  expect(b.logs()).toContain("event listener connection lost");
  onA.close();
  onB.close();
}, 120_000);
