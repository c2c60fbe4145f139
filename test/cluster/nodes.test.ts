import { expect, test } from "bun:test";
import { join } from "node:path";
import { clusterNodes, prepareDataDir, serverData, until, type ServerData } from "../helpers/crash.ts";
import { testEngine } from "../helpers/postgres.ts";
import { BUN, ROOT, type ChildServer } from "../helpers/process.ts";
import { readSimSent } from "../helpers/sim-sent.ts";

// Real `parley serve` processes on one database (docs/cluster.md). The nodes share one data dir,
// so their in-process sim networks know each other's links (sim-network.json) and sends
// (sim-sent.jsonl): a session taken over by another node reconnects from its stored link.

const METRICS = "cluster-test-metrics-token";
const ENV = { PARLEY_LOG_LEVEL: "info", PARLEY_SEND_MIN_GAP_MS: "0", PARLEY_SEND_JITTER_MS: "0", PARLEY_JOB_POLL_MS: "100", PARLEY_METRICS_TOKEN: METRICS };

const { node, servers } = clusterNodes(ENV);

function caller(token: string) {
  return async (s: ChildServer, method: string, path: string, body?: unknown) => {
    const res = await fetch(s.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
}

/** `parley nodes --json` on the data. */
function nodesJson(data: ServerData): { id: string; alive: boolean; sessions: string[]; url: string }[] {
  const env = { ...process.env, ...(data.databaseUrl ? { PARLEY_DATABASE_URL: data.databaseUrl } : {}) };
  const p = Bun.spawnSync([BUN, join(ROOT, "src/main.ts"), "nodes", "--json", "--data-dir", data.dataDir], { cwd: ROOT, env, stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`parley nodes exited ${p.exitCode}: ${p.stderr.toString()}`);
  return JSON.parse(p.stdout.toString());
}

/** Live leases: session -> node. */
async function holders(data: ServerData): Promise<Map<string, string>> {
  const rows = await data
    .store()
    .prepare<{ s: string; n: string }>("SELECT session_id AS s, node_id AS n FROM session_leases WHERE expires_at > ?")
    .all(Date.now());
  return new Map(rows.map((r) => [r.s, r.n]));
}

const heldBy = (h: Map<string, string>, node: string) => [...h].filter(([, n]) => n === node).map(([s]) => s);

test("one node on either engine: GET /health names it, parley nodes --json lists it alive with its sessions, /metrics counts its leases", async () => {
  const data = await serverData("parley-node-");
  const token = await prepareDataDir(data);
  const call = caller(token);
  try {
    const a = await node(data, "solo-node");
    const health = await fetch(a.url + "/health").then((r) => r.json() as Promise<any>);
    expect(health.data.node).toBe("solo-node");
    const created = await call(a, "POST", "/api/v1/chatapp", { name: "solo" });
    const sid = created.body.data.id as string;
    expect((await call(a, "POST", `/api/v1/chatapp/${sid}/connect`)).status).toBe(200);
    expect((await call(a, "POST", `/api/sim/sessions/${sid}/scan`, { phoneNumber: "919811100001" })).status).toBe(200);
    await until("connected", async () => (await call(a, "GET", `/api/v1/chatapp/${sid}/status`)).body.data.status === "connected");
    await until("listed", () => nodesJson(data).find((n) => n.id === "solo-node")?.sessions.includes(sid));
    const listed = nodesJson(data);
    expect(listed.map((n) => ({ id: n.id, alive: n.alive, sessions: n.sessions, url: n.url }))).toEqual([{ id: "solo-node", alive: true, sessions: [sid], url: a.url }]);
    const metrics = await fetch(a.url + "/metrics", { headers: { authorization: `Bearer ${METRICS}` } }).then((r) => r.text());
    expect(metrics).toContain('parley_session_leases{node="solo-node"} 1');
    // a clean stop frees the lease and marks the node stopped
    expect(await a.stop()).toBe(0);
    const after = nodesJson(data);
    expect(after.map((n) => ({ id: n.id, alive: n.alive, sessions: n.sessions }))).toEqual([{ id: "solo-node", alive: false, sessions: [] }]);
  } finally {
    await data.close();
  }
}, 60_000);

test.skipIf(testEngine !== "postgres")(
  "PostgreSQL only: sessions created through different nodes are held once each; a later node gets its share; kill -9 → taken over and sending within 15 s; SIGTERM → handed over in under 5 s; SIGSTOP past the lease → it closes its links and sends nothing",
  async () => {
    const data = await serverData("parley-cluster-");
    // Pro: ten sessions
    const token = await prepareDataDir(data, (db, ws) => db.prepare("UPDATE workspaces SET plan_id = 'pro', subscription_status = 'active' WHERE id = ?").run(ws).then(() => {}));
    const call = caller(token);
    try {
      const a = await node(data, "node-a");
      const b = await node(data, "node-b");
      // three sessions paired through each node
      const ids: string[] = [];
      for (const [i, s] of [a, a, a, b, b, b].entries()) {
        const created = await call(s, "POST", "/api/v1/chatapp", { name: `s${i}` });
        expect(`${created.status} ${created.status === 201 ? "" : JSON.stringify(created.body)}`).toBe("201 ");
        const sid = created.body.data.id as string;
        expect((await call(s, "POST", `/api/v1/chatapp/${sid}/connect`)).status).toBe(200);
        expect((await call(s, "POST", `/api/sim/sessions/${sid}/scan`, { phoneNumber: `91981110000${i}` })).status).toBe(200);
        await until(`s${i} connected`, async () => (await call(s, "GET", `/api/v1/chatapp/${sid}/status`)).body.data.status === "connected");
        ids.push(sid);
      }
      // each held by one node (the nodes even them out once they settled: three each)
      let h = await until("every session held, three on each node", async () => {
        const now = await holders(data);
        return now.size === 6 && heldBy(now, "node-a").length === 3 && heldBy(now, "node-b").length === 3 ? now : null;
      }, 30_000);
      expect([...h.keys()].sort()).toEqual([...ids].sort());

      // a node added later gets its share (2 of 6), a few at a time, from the others
      const c = await node(data, "node-c");
      h = await until("node-c holds its share", async () => {
        const now = await holders(data);
        return heldBy(now, "node-c").length === 2 && now.size === 6 ? now : null;
      }, 30_000);
      expect(heldBy(h, "node-a").length + heldBy(h, "node-b").length).toBe(4);
      const listed = nodesJson(data);
      expect(listed.map((n) => [n.id, n.alive, n.sessions.length]).sort()).toEqual([["node-a", true, 2], ["node-b", true, 2], ["node-c", true, 2]]);

      // kill -9 of node-a: its sessions are held by live nodes within 15 s, and send from there
      const fromA = heldBy(h, "node-a");
      a.proc.kill("SIGKILL");
      await a.proc.exited;
      const killedAt = Date.now();
      await until("node-a's sessions taken over", async () => {
        const now = await holders(data);
        return fromA.every((s) => now.get(s) === "node-b" || now.get(s) === "node-c");
      }, 20_000);
      const takeover = Date.now() - killedAt;
      expect(takeover).toBeLessThan(15_000);
      for (const [i, sid] of fromA.entries()) {
        const r = await call(b, "POST", "/api/v1/messages/send", { session_id: sid, to: "919822222222", body: `after kill ${i}` });
        expect(r.status).toBe(202);
      }
      await until("sent after the takeover", () => fromA.every((_, i) => readSimSent(data.dataDir).some((e) => e.text === `after kill ${i}`)), 15_000);
      // and every node says so: connected and live again, whichever node is asked
      for (const s of [b, c])
        for (const sid of fromA) {
          const st = await until(`${sid} live`, async () => {
            const r = (await call(s, "GET", `/api/v1/chatapp/${sid}/status`)).body.data;
            return r.live ? r : null;
          }, 10_000);
          expect(st).toMatchObject({ status: "connected", connected: true, live: true });
        }

      // SIGTERM of node-b: its sessions are held by node-c in under 5 s
      const fromB = heldBy(await holders(data), "node-b");
      const termAt = Date.now();
      expect(await b.stop()).toBe(0);
      await until("node-b's sessions handed over", async () => {
        const now = await holders(data);
        return fromB.every((s) => now.get(s) === "node-c");
      }, 10_000);
      const handover = Date.now() - termAt;
      expect(handover).toBeLessThan(5_000);

      // node-d joins; then node-c is frozen past its lease: node-d takes everything, and node-c,
      // woken, closes its links and sends nothing
      const d = await node(data, "node-d");
      await until("node-d holds its share", async () => heldBy(await holders(data), "node-d").length === 3, 30_000);
      const fromC = heldBy(await holders(data), "node-c");
      c.proc.kill("SIGSTOP");
      await until("node-c's sessions taken by node-d", async () => {
        const now = await holders(data);
        return ids.every((s) => now.get(s) === "node-d");
      }, 20_000);
      // while node-c sleeps, a message for each of its former sessions goes out from node-d
      for (const [i, sid] of fromC.entries()) {
        expect((await call(d, "POST", "/api/v1/messages/send", { session_id: sid, to: "919833333333", body: `frozen ${i}` })).status).toBe(202);
      }
      await until("sent by node-d", () => fromC.every((_, i) => readSimSent(data.dataDir).some((e) => e.text === `frozen ${i}`)), 15_000);
      c.proc.kill("SIGCONT");
      await until("node-c closed its links", () => /could not be renewed in time|lease lost/.test(c.logs()), 10_000);
      await Bun.sleep(1_000);
      const counts = new Map<string, number>();
      for (const e of readSimSent(data.dataDir)) counts.set(e.text!, (counts.get(e.text!) ?? 0) + 1);
      for (const [text, n] of counts) expect(`${text}: ${n}`).toBe(`${text}: 1`);
      // the woken node takes part again: the sessions even out over node-c and node-d
      await until("evened out again", async () => {
        const now = await holders(data);
        return heldBy(now, "node-c").length === 3 && heldBy(now, "node-d").length === 3;
      }, 30_000);
      const metrics = await fetch(d.url + "/metrics", { headers: { authorization: `Bearer ${METRICS}` } }).then((r) => r.text());
      expect(metrics).toMatch(/parley_session_lease_moves\{node="node-d",kind="takeover"\} [1-9]/);
      console.log(`takeover after kill -9: ${takeover} ms; handover on SIGTERM: ${handover} ms`);
    } finally {
      for (const s of servers) s.proc.kill("SIGKILL");
      await Promise.all(servers.map((s) => s.proc.exited));
      await data.close();
    }
  },
  180_000,
);
