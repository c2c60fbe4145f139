// A webhook receiver in the bench's own process: reads each POSTed body whole and answers "ok".
// The webhooks bench and its probe of a worker thread (http-thread-probe.ts) measure against it.
export interface LocalReceiver {
  /** http://127.0.0.1:<port> */
  base: string;
  /** requests answered so far */
  received(): number;
  stop(): void;
}

export function localReceiver(): LocalReceiver {
  let received = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      await req.arrayBuffer();
      received++;
      return new Response("ok");
    },
  });
  return { base: `http://127.0.0.1:${server.port}`, received: () => received, stop: () => server.stop(true) };
}

/**
 * The webhook benches' bare baseline: `total` POSTs of `body` to `base`, `concurrency` in flight,
 * over the paths /hook/0 … /hook/<paths - 1>, with plain fetch. Returns POSTs a second.
 */
export async function bareFetchLoop(base: string, body: string, total: number, concurrency: number, paths: number): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (next++ < total) await (await fetch(`${base}/hook/${w % paths}`, { method: "POST", headers: { "content-type": "application/json" }, body })).arrayBuffer();
    }),
  );
  return total / ((performance.now() - start) / 1000);
}
