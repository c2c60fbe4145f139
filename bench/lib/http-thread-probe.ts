// Would sending webhooks from a worker thread raise deliveries/s? `bun bench/lib/http-thread-probe.ts [µs]`
// A model of the dispatcher, not Parley's code: a receiver in this process (as in the webhooks
// bench), 16 POSTs in flight, and `µs` of busy main-thread work per delivery standing for
// Parley's own (claim, record, commit: ≈16 µs measured). Three ways, interleaved, 3 rounds:
// - bare: a fetch loop (the webhooks bench's baseline);
// - main: the same loop doing the work before each POST (the dispatcher as it is);
// - thread: the work on the main thread, the POSTs (signed with the ten delivery headers) from a worker,
//   in batches of one turn each way (the proposed move of the HTTP half).
// Prints each one's deliveries/s, its ratio to bare and the process's CPU µs per delivery.
import { localReceiver } from "./local-receiver.ts";

const WORK_US = Number(process.argv[2] ?? 16);
const TOTAL = 8000;
const CONCURRENCY = 16;

const receiver = localReceiver();
const { base } = receiver;
const body = JSON.stringify({ event: "message_received", data: { sessionId: Bun.randomUUIDv7(), from: "919800000001", text: "Hello there, this is a typical inbound message." } });

function work(us: number): void {
  const end = performance.now() + us / 1000;
  while (performance.now() < end);
}

async function loop(us: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, w) => {
      while (next++ < TOTAL) {
        work(us);
        await (await fetch(`${base}/hook/${w % 8}`, { method: "POST", headers: { "content-type": "application/json" }, body })).arrayBuffer();
      }
    }),
  );
}

const worker = new Worker(new URL("./http-thread-probe-worker.ts", import.meta.url).href);
await new Promise((r) => worker.addEventListener("message", r, { once: true }));

function viaThread(us: number): Promise<void> {
  let sent = 0;
  let done = 0;
  return new Promise((resolve) => {
    const launch = (n: number) => {
      const batch: { id: number; url: string; payload: string }[] = [];
      for (; batch.length < n && sent < TOTAL; sent++) {
        work(us / 2); // the claim's share
        batch.push({ id: sent, url: `${base}/hook/${sent % 8}`, payload: body });
      }
      if (batch.length) worker.postMessage(batch);
    };
    worker.onmessage = (e: MessageEvent<unknown[]>) => {
      for (let i = 0; i < e.data.length; i++) work(us / 2); // recording's share
      done += e.data.length;
      if (done >= TOTAL) resolve();
      else launch(e.data.length);
    };
    launch(CONCURRENCY);
  });
}

async function measure(run: () => Promise<void>): Promise<{ rate: number; cpuUs: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await run();
  const c = process.cpuUsage(c0);
  return { rate: TOTAL / ((performance.now() - t0) / 1000), cpuUs: (c.user + c.system) / TOTAL };
}

await loop(0); // warm-up
for (let r = 0; r < 3; r++) {
  const bare = await measure(() => loop(0));
  const main = await measure(() => loop(WORK_US));
  const thread = await measure(() => viaThread(WORK_US));
  const show = (name: string, x: { rate: number; cpuUs: number }) => `${name} ${x.rate.toFixed(0)}/s (${(x.rate / bare.rate).toFixed(2)}, ${x.cpuUs.toFixed(0)} µs CPU)`;
  console.log([show("bare", bare), show("main", main), show("thread", thread)].join(" | "));
}
worker.terminate();
receiver.stop();
