// Queue drain on the sim network with pacing off: messages accepted (queued) first, then the
// durable sender sends them all; messages sent per second. Baseline in the same run, on the
// same sim network and sessions: a bare loop per session that reads the oldest queued row,
// calls the network's send and commits the row as sent (one prepared SELECT and UPDATE each).
import { benchEngine } from "./lib/engine.ts";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { acceptSend } from "../src/modules/messages/service.ts";
import { benchRuntime } from "./lib/runtime.ts";
import { goalOf, REFERENCE } from "./lib/goals.ts";
import { median, report } from "./lib/report.ts";
import { benchDir } from "./lib/tmp.ts";
import { interleave, isRoundChild } from "./lib/interleave.ts";

// the current and previous releases' copies of this file, round by round (see interleave.ts)
if (!isRoundChild()) {
  interleave("drain");
  process.exit(process.exitCode ?? 0);
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SESSIONS = 4;
const PG = benchEngine() === "postgres";
const N = Number(process.env.BENCH_DRAIN ?? 4000);

const { rt, sim, s } = await benchRuntime({ sendMinGapMs: 0, sendJitterMs: 0, jobPollMs: 20, jobConcurrency: SESSIONS }, SESSIONS);
const { deps } = rt;
const queued = deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM messages WHERE status = 'queued'");
deps.jobs.start();

async function parleyDrain(): Promise<number> {
  await deps.jobs.stop(5000); // accept everything first, then drain
  for (let i = 0; i < N; i++) {
    await acceptSend(deps, { workspaceId: s.workspaceId, actorId: s.userId }, { session_id: s.sessionIds[i % SESSIONS]!, to: "919812345678", type: "text", body: `drain ${i}` } as never);
  }
  const t0 = performance.now();
  deps.jobs.start();
  while ((await queued.get())!.n > 0) await Bun.sleep(1);
  return N / ((performance.now() - t0) / 1000);
}

const bareDb = new Database(join(benchDir("parley-bare-"), "bare.db"), { create: true, strict: true });
bareDb.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");
bareDb.exec("CREATE TABLE m (id TEXT PRIMARY KEY, session_id TEXT, phone TEXT, body TEXT, status TEXT, network_id TEXT)");
bareDb.exec("CREATE INDEX m_q ON m (session_id, status, id)");
const bareIns = bareDb.prepare("INSERT INTO m VALUES (?, ?, '919812345678', ?, 'queued', NULL)");
const bareHead = bareDb.prepare("SELECT id, phone, body FROM m WHERE session_id = ? AND status = 'queued' ORDER BY id LIMIT 1");
const bareSent = bareDb.prepare("UPDATE m SET status = 'sent', network_id = ? WHERE id = ?");

async function bareDrain(): Promise<number> {
  bareDb.transaction(() => {
    for (let i = 0; i < N; i++) bareIns.run(Bun.randomUUIDv7(), s.sessionIds[i % SESSIONS]!, `drain ${i}`);
  })();
  const t0 = performance.now();
  await Promise.all(
    s.sessionIds.map(async (sid) => {
      for (;;) {
        const head = bareHead.get(sid) as { id: string; phone: string; body: string } | null;
        if (!head) return;
        const r = await sim.send(sid, { to: head.phone, type: "text", text: head.body, clientMessageId: head.id });
        bareSent.run(r.networkMessageId, head.id);
      }
    }),
  );
  return N / ((performance.now() - t0) / 1000);
}

await bareDrain(); // warm-up
const rounds: { parley: number; baseline: number }[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const baseline = await bareDrain();
  const parley = await parleyDrain();
  rounds.push({ parley, baseline });
}
await rt.close();
const rate = median(rounds.map((r) => r.parley));
report("drain", `Queue drain: ${N} messages over ${SESSIONS} sim sessions, pacing off (in process, from source)`, [
  {
    scenario: "queue drain (messages sent/s)",
    parley: rate,
    baseline: median(rounds.map((r) => r.baseline)),
    ratio: median(rounds.map((r) => r.parley / r.baseline)),
    unit: "msg/s",
    baselineWhat: "bare loop: SELECT head, sim send, UPDATE sent",
    ...goalOf(rate, median(rounds.map((r) => r.baseline)), PG ? 2_000 : 5_000, REFERENCE.bareDrainPerS, " msg/s"),
    rounds,
  },
]);
