// kill -9 of a real server process while its run job writes a large audience: the start answered
// with the first batch only, and after restarts every opted-in contact is a recipient exactly once.
import { expect, test } from "bun:test";
import type { DB, SqlParam } from "../../../src/db/store.ts";
import { prepareDataDir, serverData, until } from "../../helpers/crash.ts";
import { caller, type ChildServer } from "../../helpers/process.ts";

const N = 12_000;
const ENV = { PARLEY_JOB_POLL_MS: "50", PARLEY_LOG_LEVEL: "warn" };

/** N contacts (every tenth opted out), 500 a statement. */
async function seed(db: DB, wsId: string): Promise<void> {
  const now = Date.now();
  for (let from = 0; from < N; from += 500) {
    const rows: SqlParam[] = [];
    for (let i = from; i < Math.min(N, from + 500); i++) rows.push(Bun.randomUUIDv7(), wsId, `9176${String(1_000_000 + i).padStart(8, "0")}`, i % 10 === 0 ? 1 : 0, now, now);
    const values = Array.from({ length: rows.length / 6 }, () => "(?, ?, ?, ?, ?, ?)").join(", ");
    await db.prepare(`INSERT INTO contacts (id, workspace_id, phone, opted_out, created_at, updated_at) VALUES ${values}`).run(...rows);
  }
}

test(
  `SIGKILL while the audience of ${N.toLocaleString("en")} contacts is written, twice: the start answered at once, then every opted-in contact a recipient exactly once`,
  async () => {
    const data = await serverData("parley-materialize-crash-");
    const token = await prepareDataDir(data, seed);
    let server: ChildServer = await data.spawn({ env: ENV });
    const call = caller(() => server, token);
    const restart = async () => {
      server.proc.kill("SIGKILL");
      await server.proc.exited;
      server = await data.spawn({ env: ENV });
    };
    const written = async (id: string) =>
      Number((await data.store().prepare<{ n: number }>("SELECT count(*) AS n FROM campaign_recipients WHERE campaign_id = ?").get(id))!.n);
    try {
      // a session never linked: once the audience is written, the run job pauses the campaign (nothing is sent)
      const sid = (await call("POST", "/api/v1/chatapp", { name: "crash" })).body.data.id as string;
      const created = await call("POST", "/api/v1/campaigns", {
        name: "big",
        sessionIds: [sid],
        message: { type: "text", body: "Hi" },
        audience: { filter: { createdWithinDays: 30 } },
      });
      expect(created.status).toBe(201);
      const id = created.body.data.id as string;
      const started = await call("POST", `/api/v1/campaigns/${id}/start`);
      expect(started.status).toBe(200);
      expect(started.body.data.status).toBe("running");
      // answered with the first batch: the rest is the run job's
      expect(started.body.data.stats.total).toBeLessThan(N * 0.9);
      await restart(); // at once: whatever the run job had written
      const before = await written(id);
      await until("more recipients after the restart", async () => (await written(id)) > before, 60_000);
      await restart(); // in the middle of it, most likely
      const done = await until(
        "materialised",
        async () => (await data.store().prepare<{ at: number | null }>("SELECT materialized_at AS at FROM campaigns WHERE id = ?").get(id))?.at ?? null,
        120_000,
      );
      expect(done).toBeGreaterThan(0);
      const rows = await data.store().prepare<{ contactId: string; status: string }>('SELECT contact_id AS "contactId", status FROM campaign_recipients WHERE campaign_id = ?').all(id);
      expect(rows.length).toBe(N * 0.9);
      expect(new Set(rows.map((r) => r.contactId)).size).toBe(N * 0.9);
      const optedOut = await data.store().prepare<{ n: number }>(
        "SELECT count(*) AS n FROM campaign_recipients r JOIN contacts c ON c.id = r.contact_id WHERE r.campaign_id = ? AND c.opted_out = 1",
      ).get(id);
      expect(Number(optedOut!.n)).toBe(0);
      const c = await until("counted", async () => {
        const got = (await call("GET", `/api/v1/campaigns/${id}`)).body.data;
        return got?.stats?.total === N * 0.9 ? got : null;
      });
      const s = c.stats;
      expect(s.pending + s.sent + s.delivered + s.read + s.failed + s.skipped).toBe(s.total);
    } finally {
      server.proc.kill("SIGKILL");
      await server.proc.exited;
      await data.close();
    }
  },
  240_000,
);
