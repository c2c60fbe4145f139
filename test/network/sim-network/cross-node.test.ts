// PostgreSQL only (nodes share its database): a node that does not hold a session answers the
// sim routes for it, through the sim network process, while the node holding the link stores
// what arrives. Both nodes start before the session exists: a node starting later would bring
// the connected session back as its own at start-up (taking sessions over between live nodes
// belongs to session leases).
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prepareDataDir, serverData, until, type ServerData } from "../../helpers/crash.ts";
import { testEngine } from "../../helpers/postgres.ts";
import type { ChildServer } from "../../helpers/process.ts";
import { caller, pair, readLinks, spawnSimNetwork, type SimNetworkProcess } from "../../helpers/sim-network.ts";

const ENV = { PARLEY_SEND_MIN_GAP_MS: "0", PARLEY_SEND_JITTER_MS: "0", PARLEY_JOB_POLL_MS: "50", PARLEY_LOG_LEVEL: "warn" };

let net: SimNetworkProcess | undefined;
let data: ServerData | undefined;
const nodes: ChildServer[] = [];

afterAll(async () => {
  for (const n of nodes) {
    n.proc.kill("SIGKILL");
    await n.proc.exited;
  }
  await net?.stop();
  await data?.close();
});

test.skipIf(testEngine !== "postgres")("PostgreSQL only: another node on the same database answers the sim routes for a session the first node holds", async () => {
  net = await spawnSimNetwork();
  data = await serverData("parley-simnet-cross-");
  const token = await prepareDataDir(data);
  const a = await data.spawn({ env: { ...ENV, PARLEY_NODE_ID: "holder" }, args: ["--sim-url", net.url] });
  const b = await data.spawn({ env: { ...ENV, PARLEY_NODE_ID: "other" }, args: ["--sim-url", net.url], dataDir: mkdtempSync(join(tmpdir(), "parley-simnet-other-")) });
  nodes.push(a, b);
  const viaA = caller(() => a, token);
  const viaB = caller(() => b, token);

  const sid = await pair(viaA, "919811170001");
  await until("linked by the holder", () => readLinks(net!.dataDir).some((l) => l.sessionId === sid && l.node === "holder"));
  // the message is stored by the node holding the link; the other answers once it sees the row
  const inbound = await viaB("POST", `/api/sim/sessions/${sid}/inbound`, { from: "919822270001", text: "via the other node" });
  expect({ status: inbound.status, error: inbound.body.message }).toEqual({ status: 200, error: expect.any(String) });
  expect((await viaA("GET", `/api/v1/messages/${inbound.body.data.messageId}`)).body.data).toMatchObject({ direction: "inbound", body: "via the other node" });
  const failed = await viaB("POST", `/api/sim/sessions/${sid}/fail`, { count: 1 });
  expect({ status: failed.status, error: failed.body.message }).toEqual({ status: 200, error: expect.any(String) });
  // the link never moved
  expect(readLinks(net.dataDir).map((l) => [l.node, l.event])).toEqual([["holder", "open"]]);
}, 120_000);
