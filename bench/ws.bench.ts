// WebSocket fan-out: events of one workspace delivered to its open sockets, messages per
// second, against a bare Bun.serve WebSocket server publishing the same text to one topic.
// Parley and the bare server run in this process; the sockets live in a child process.
import { startChild } from "./lib/proc.ts";
import { benchRuntime } from "./lib/runtime.ts";
import { median, report } from "./lib/report.ts";
import { interleave, isRoundChild } from "./lib/interleave.ts";

// the current and previous releases' copies of this file, round by round (see interleave.ts)
if (!isRoundChild()) {
  interleave("ws");
  process.exit(process.exitCode ?? 0);
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SOCKETS = 50;
const EVENTS = Number(process.env.BENCH_WS_EVENTS ?? 2000);
const BATCH = 50; // events per transaction

// one user opens every socket: the per-user cap (10 by default) lifted for the bench
const { rt, s } = await benchRuntime({ wsMaxSocketsPerUser: 1000 });
rt.app.listen({ port: 0, hostname: "127.0.0.1" });
const parleyClients = await startChild<{ port: number }>("ws-clients.ts", [`ws://127.0.0.1:${rt.app.server!.port}/api/ws?token=${s.token}`, String(SOCKETS)]);

const sample = { sessionId: s.sessionIds[0], messageId: "m", status: "sent", to: "919812345678" };
const bare = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(req, server) {
    return server.upgrade(req) ? undefined : new Response("upgrade", { status: 400 });
  },
  websocket: { open: (ws) => void ws.subscribe("ws"), message() {} },
});
const bareClients = await startChild<{ port: number }>("ws-clients.ts", [`ws://127.0.0.1:${bare.port}/`, String(SOCKETS)]);

async function waitCount(port: number, expected: number): Promise<void> {
  let got = 0;
  for (let i = 0; i < 20_000 && got < expected; i++) {
    await Bun.sleep(1);
    got += (await (await fetch(`http://127.0.0.1:${port}/`)).json()) as number;
  }
}

async function parleyRound(): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < EVENTS; i += BATCH) {
    await rt.deps.db.tx(async () => {
      for (let j = 0; j < BATCH; j++) await rt.deps.bus.publish(s.workspaceId, "message_sent", { ...sample, messageId: `m${i + j}` });
    });
    await Bun.sleep(0);
  }
  await waitCount(parleyClients.info.port, EVENTS * SOCKETS);
  return (EVENTS * SOCKETS) / ((performance.now() - t0) / 1000);
}

async function bareRound(): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < EVENTS; i += BATCH) {
    for (let j = 0; j < BATCH; j++) {
      const e = { id: Bun.randomUUIDv7(), event: "message_sent", timestamp: new Date().toISOString(), data: { ...sample, messageId: `m${i + j}` } };
      bare.publish("ws", JSON.stringify({ event: e.event, timestamp: e.timestamp, data: e.data }));
    }
    await Bun.sleep(0);
  }
  await waitCount(bareClients.info.port, EVENTS * SOCKETS);
  return (EVENTS * SOCKETS) / ((performance.now() - t0) / 1000);
}

await bareRound();
await parleyRound();
const rounds: { parley: number; baseline: number }[] = [];
for (let i = 0; i < ROUNDS; i++) rounds.push({ baseline: await bareRound(), parley: await parleyRound() });
await parleyClients.stop();
await bareClients.stop();
bare.stop(true);
await rt.app.stop();
await rt.close();
const ratio = median(rounds.map((r) => r.parley / r.baseline));
report("ws", `WebSocket fan-out: ${EVENTS} events to ${SOCKETS} sockets of one workspace (sockets in a child process)`, [
  {
    scenario: "fan-out (messages delivered/s)",
    parley: median(rounds.map((r) => r.parley)),
    baseline: median(rounds.map((r) => r.baseline)),
    ratio,
    unit: "msg/s",
    baselineWhat: "bare Bun.serve server.publish to one topic",
    goal: "≥ 0.5 of bare",
    met: ratio >= 0.5,
    rounds,
  },
]);
