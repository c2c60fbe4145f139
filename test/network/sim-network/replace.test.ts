// Two nodes link the same number through one sim network process: the newer link replaces the
// older, whose node hears the real network's `replaced` and ends the session with that reason.
import { afterAll, expect, test } from "bun:test";
import { prepareDataDir, serverData, until, type ServerData } from "../../helpers/crash.ts";
import type { ChildServer } from "../../helpers/process.ts";
import { readSimSent } from "../../helpers/sim-sent.ts";
import { caller, pair, readLinks, spawnSimNetwork, type SimNetworkProcess } from "../../helpers/sim-network.ts";

const ENV = { PARLEY_SEND_MIN_GAP_MS: "0", PARLEY_SEND_JITTER_MS: "0", PARLEY_JOB_POLL_MS: "50", PARLEY_LOG_LEVEL: "warn" };
const PHONE = "919811160001";

let net: SimNetworkProcess | undefined;
const datas: ServerData[] = [];
const nodes: ChildServer[] = [];

afterAll(async () => {
  for (const n of nodes) {
    n.proc.kill("SIGKILL");
    await n.proc.exited;
  }
  await net?.stop();
  for (const d of datas) await d.close();
});

async function startNode(name: string) {
  const data = await serverData(`parley-simnet-${name}-`);
  datas.push(data);
  const token = await prepareDataDir(data);
  // the sim network process is given through the environment here (PARLEY_SIM_URL), the flag elsewhere
  const node = await data.spawn({ env: { ...ENV, PARLEY_NODE_ID: name, PARLEY_SIM_URL: net!.url } });
  nodes.push(node);
  return caller(() => node, token);
}

test("two nodes link the same number: the first link is closed as replaced, its session ends `replaced`, sim-links.jsonl shows it", async () => {
  net = await spawnSimNetwork();
  const a = await startNode("node-a");
  const b = await startNode("node-b");

  const first = await pair(a, PHONE, "first");
  const second = await pair(b, PHONE, "second");

  const status = await until("the first session ended", async () => {
    const s = (await a("GET", `/api/v1/chatapp/${first}/status`)).body.data;
    return s?.status === "disconnected" ? s : null;
  });
  expect(status.lastDisconnectReason).toBe("replaced");
  expect((await b("GET", `/api/v1/chatapp/${second}/status`)).body.data.connected).toBe(true);

  const links = await until("replaced in the log", () => {
    const l = readLinks(net!.dataDir);
    return l.some((x) => x.sessionId === first && x.event === "close") ? l : null;
  });
  expect(links.find((x) => x.sessionId === first && x.event === "close")).toMatchObject({ node: "node-a", phone: PHONE, reason: "replaced" });
  expect(links.filter((x) => x.sessionId === second).map((x) => [x.event, x.node])).toEqual([["open", "node-b"]]);

  // the replaced node sends nothing more; the one holding the number does
  const late = await a("POST", "/api/v1/messages/send", { session_id: first, to: "919822260001", body: "from the replaced node" });
  expect([late.status, late.body.code ?? late.body.error?.code]).toEqual([502, "CHATAPP_UNAVAILABLE"]); // the session is disconnected
  expect((await b("POST", "/api/v1/messages/send", { session_id: second, to: "919822260001", body: "from the live node" })).status).toBe(202);
  await until("the live node's send", () => readSimSent(net!.dataDir).some((e) => e.text === "from the live node"));
  expect(readSimSent(net!.dataDir).some((e) => e.text === "from the replaced node")).toBe(false);
}, 120_000);
