import { expect, test } from "bun:test";
import { expectDataOnEngine, prepareDataDir, serverData, until } from "../../helpers/crash.ts";
import { caller, type Caller, type ChildServer } from "../../helpers/process.ts";
import { readSimSent } from "../../helpers/sim-sent.ts";

const N = 40;
// one node restarted under its own id: it frees its previous run's session leases at start
// (under a new id it would wait for them to expire, as for another node's: docs/cluster.md)
const ENV = { PARLEY_SEND_MIN_GAP_MS: "40", PARLEY_SEND_JITTER_MS: "0", PARLEY_JOB_POLL_MS: "50", PARLEY_LOG_LEVEL: "warn", PARLEY_NODE_ID: "crash-node" };

/** What the sim network accepted, from its append-only log in the data dir. */
const sentLog = readSimSent;

/**
 * Queues `n` messages (`parallel` requests at a time), SIGKILLs the server twice while the queue
 * drains (once `kills` messages went out), restarts it each time, and counts on the receiving
 * side (the sim's log) that every message went out exactly once.
 */
async function killScenario(
  dataDir: string,
  token: string,
  start: () => Promise<ChildServer>,
  link: (call: Caller) => Promise<string>,
  { n = N, kills = [5, 15], parallel = 1 }: { n?: number; kills?: number[]; parallel?: number } = {},
) {
  let server = await start();
  const call = caller(() => server, token);
  try {
    const sid = await link(call);
    for (let i = 0; i < n; i += parallel) {
      const sends = Array.from({ length: Math.min(parallel, n - i) }, (_, k) => call("POST", "/api/v1/messages/send", { session_id: sid, to: "919822222222", body: `crash ${i + k}` }));
      for (const r of await Promise.all(sends)) expect(r.status).toBe(202);
    }
    for (const atLeast of kills) {
      await until(`${atLeast} sent`, () => sentLog(dataDir).length >= atLeast);
      server.proc.kill("SIGKILL");
      await server.proc.exited;
      server = await start();
    }
    await until("all sent", () => new Set(sentLog(dataDir).map((e) => e.text)).size === n, 60_000);
    await until("none left queued", async () => (await call("GET", "/api/v1/messages?status=queued&limit=1")).body.data?.length === 0, 60_000);
    expect((await call("GET", "/api/v1/messages?status=failed&limit=1")).body.data).toEqual([]);
    await Bun.sleep(300); // a late duplicate would show up here
    const counts = new Map<string, number>();
    for (const e of sentLog(dataDir)) counts.set(e.text!, (counts.get(e.text!) ?? 0) + 1);
    expect(counts.size).toBe(n);
    for (const [text, n] of counts) expect(`${text}: ${n}`).toBe(`${text}: 1`);
    expect((await call("GET", "/api/v1/messages?status=queued")).body.data).toEqual([]);
  } finally {
    server.proc.kill("SIGKILL");
    await server.proc.exited;
  }
}

/** Creates a session named `name` over HTTP and pairs it to `phone` on the sim network; its id. */
function pairOverHttp(name: string, phone: string) {
  return async (call: Parameters<Parameters<typeof killScenario>[3]>[0]): Promise<string> => {
    const created = await call("POST", "/api/v1/chatapp", { name });
    expect(created.status).toBe(201);
    const sid = created.body.data.id as string;
    expect((await call("POST", `/api/v1/chatapp/${sid}/connect`)).status).toBe(200);
    await until("QR", async () => (await call("GET", `/api/v1/chatapp/${sid}/qr`)).status === 200);
    expect((await call("POST", `/api/sim/sessions/${sid}/scan`, { phoneNumber: phone })).status).toBe(200);
    await until("connected", async () => (await call("GET", `/api/v1/chatapp/${sid}/status`)).body.data?.connected === true);
    return sid;
  };
}

test(
  "SIGKILL with queued messages, restart: every message is sent exactly once (session paired over HTTP)",
  async () => {
    const data = await serverData("parley-crash-");
    const token = await prepareDataDir(data);
    await killScenario(data.dataDir, token, () => data.spawn({ env: ENV }), pairOverHttp("crash", "919811111111"));
    await expectDataOnEngine(data);
    await data.close();
  },
  120_000,
);

test(
  "pacing off (heads claimed in batches): SIGKILL while batches are in flight, restart: every message is sent exactly once",
  async () => {
    const data = await serverData("parley-crash-batch-");
    const token = await prepareDataDir(data);
    const env = { ...ENV, PARLEY_SEND_MIN_GAP_MS: "0", PARLEY_RATE_LIMIT_PER_MINUTE: "1000000" };
    await killScenario(
      data.dataDir,
      token,
      () => data.spawn({ env }),
      pairOverHttp("crash-batch", "919811111112"),
      { n: 1200, kills: [100, 600], parallel: 40 },
    );
    await expectDataOnEngine(data);
    await data.close();
  },
  180_000,
);
