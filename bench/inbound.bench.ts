// Inbound -> webhook latency at a fixed 1,000 inbound messages/s: the sim network delivers
// each message (network latency set to 0), Parley stores it (contact, conversation, message,
// outbox row in one transaction) and the dispatcher POSTs message_received to a receiver in
// its own process, which measures arrival minus injection. Baseline in the same run: a bare
// relay in this process that POSTs the same kind of body to the same receiver at the same rate.
import { createWebhook } from "../src/modules/webhooks/service.ts";
import { startChild } from "./lib/proc.ts";
import { benchRuntime } from "./lib/runtime.ts";
import { median, percentile, report } from "./lib/report.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RATE = Number(process.env.BENCH_INBOUND_RATE ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const TICK_MS = 5;

const receiver = await startChild<{ port: number }>("receiver.ts");
const url = `http://127.0.0.1:${receiver.info.port}/hook`;
const { rt, sim, s } = await benchRuntime({ webhookAllowHttp: true, webhookAllowPrivate: true }, 1, { latencyMs: 0 });
await createWebhook(rt.deps, s.workspaceId, null, { name: "bench", url, events: ["message_received"] });
rt.services.webhooks.start();
const sid = s.sessionIds[0]!;
const now = () => performance.timeOrigin + performance.now();

/** Calls `send` RATE times a second for SECONDS, in ticks; returns when all were issued. */
async function atRate(send: (i: number) => void): Promise<void> {
  const total = RATE * SECONDS;
  const t0 = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * RATE));
    while (sent < due) send(sent++);
    await Bun.sleep(TICK_MS);
  }
}

async function collect(expected: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < 2000 && out.length < expected; i++) {
    await Bun.sleep(5);
    out.push(...((await (await fetch(`http://127.0.0.1:${receiver.info.port}/stats`)).json()) as number[]));
  }
  return out;
}

async function parleyRound(): Promise<number[]> {
  await atRate((i) => sim.inbound(sid, { from: `9198${String(10_000_000 + (i % 500))}`, type: "text", text: `t=${now()}`, pushName: "Bench" }));
  return collect(RATE * SECONDS);
}

async function bareRound(): Promise<number[]> {
  const pending: Promise<unknown>[] = [];
  await atRate(() => {
    const body = JSON.stringify({ event: "message_received", timestamp: new Date().toISOString(), data: { sessionId: sid, text: `t=${now()}` } });
    pending.push(fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body }).then((r) => r.arrayBuffer()));
  });
  await Promise.all(pending);
  return collect(RATE * SECONDS);
}

await bareRound(); // warm-up
await parleyRound();
const rounds: { parley: number[]; baseline: number[] }[] = [];
for (let i = 0; i < ROUNDS; i++) rounds.push({ baseline: await bareRound(), parley: await parleyRound() });
await rt.close();
await receiver.stop();

const stat = (p: number, side: "parley" | "baseline") => rounds.map((r) => ({ v: percentile(r[side], p) }));
const row = (p: number) => {
  const pr = stat(p, "parley").map((x) => x.v);
  const br = stat(p, "baseline").map((x) => x.v);
  return { parley: median(pr), baseline: median(br), rounds: pr.map((v, i) => ({ parley: v, baseline: br[i]! })), lowerIsBetter: true, ratio: median(pr.map((v, i) => br[i]! / v)) };
};
const p50 = row(50);
const p99 = row(99);
const delivered = median(rounds.map((r) => r.parley.length));
report("inbound", `Inbound -> webhook at ${RATE}/s for ${SECONDS} s (sim latency 0, receiver in its own process)`, [
  { scenario: "inbound->webhook p50", ...p50, unit: "ms", baselineWhat: "bare relay: fetch POST at the same rate" },
  {
    scenario: "inbound->webhook p99",
    ...p99,
    unit: "ms",
    baselineWhat: "bare relay: fetch POST at the same rate",
    goal: "< 25 ms",
    met: p99.parley < 25,
    notes: `ratio = bare / Parley (latency: smaller is better); ${delivered} of ${RATE * SECONDS} deliveries received per round (median)`,
  },
]);
