// The contacts quota across server processes: two real servers on one PostgreSQL database
// (a cluster's nodes) take 50 parallel creates at the limit minus one; exactly one is created.
// On SQLite one data dir has one server by design: the second is refused, and that is checked.
import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { upsertPlan } from "../../../src/modules/billing/plans.ts";
import { expectDataOnEngine, prepareDataDir, serverData } from "../../helpers/crash.ts";
import { testEngine } from "../../helpers/postgres.ts";
import { BUN, ROOT, type ChildServer } from "../../helpers/process.ts";

const ENV = { PARLEY_LOG_LEVEL: "warn", PARLEY_RATE_LIMIT_PER_MINUTE: "1000000" };

test.skipIf(testEngine !== "postgres")(
  "PostgreSQL only: 50 parallel creates through TWO server processes on one database at the contacts limit minus one: exactly one succeeds",
  async () => {
    const data = await serverData("parley-contacts-race-");
    let wsId = "";
    const token = await prepareDataDir(data, async (db, id) => {
      wsId = id;
      await upsertPlan(db, "c10", { name: "C10", monthlyPaise: 1, annualPaise: 10, limits: { contacts: 10 } }, Date.now());
      await db.prepare("UPDATE workspaces SET plan_id = 'c10', subscription_status = 'active' WHERE id = ?").run(id);
      for (let i = 0; i < 9; i++) await db.prepare("INSERT INTO contacts (id, workspace_id, phone, created_at, updated_at) VALUES (?, ?, ?, 0, 0)").run(Bun.randomUUIDv7(), id, `9198000000${i}0`);
    });
    // each node has a data dir of its own (media, the sim network); the rows are shared
    const servers: ChildServer[] = [await data.spawn({ env: ENV }), await data.spawn({ env: ENV, dataDir: mkdtempSync(join(tmpdir(), "parley-contacts-race-b-")) })];
    try {
      const results = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const res = await fetch(`${servers[i % 2]!.url}/api/v1/contacts`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({ phone: `91985${String(i).padStart(7, "0")}` }),
          });
          return { server: i % 2, status: res.status, body: (await res.json()) as any };
        }),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      expect(results.filter((r) => r.status === 403 && r.body.code === "LIMIT_EXCEEDED")).toHaveLength(49);
      // both servers answered, each its half
      expect([0, 1].map((k) => results.filter((r) => r.server === k).length)).toEqual([25, 25]);
      expect((await data.store().prepare<{ n: number }>("SELECT count(*) AS n FROM contacts WHERE workspace_id = ?").get(wsId))!.n).toBe(10);
      await expectDataOnEngine(data);
    } finally {
      await data.closeStore();
      for (const s of servers) await s.stop();
      await data.close();
    }
  },
  60_000,
);

test.skipIf(testEngine !== "sqlite")(
  "SQLite: a second server on the same data dir is refused (one data dir, one server), so the two-server quota race runs on PostgreSQL only",
  async () => {
    const data = await serverData("parley-contacts-race-");
    await prepareDataDir(data);
    const first = await data.spawn({ env: ENV });
    try {
      const second = Bun.spawnSync([BUN, join(ROOT, "src/main.ts"), "serve", "--port", "0", "--data-dir", data.dataDir, "--network", "sim"], { cwd: ROOT, stderr: "pipe", stdout: "pipe", timeout: 30_000 });
      expect(second.exitCode).toBe(1);
      expect(second.stderr.toString()).toContain(`another Parley server (pid ${first.proc.pid}) is using the data dir ${data.dataDir}`);
    } finally {
      await first.stop();
      await data.close();
    }
  },
  60_000,
);
