// A real node (`parley serve`) linked to a real `parley sim-network` process: pairing, sends,
// inbound messages and receipts go through it, the sim routes answer through the node, and a
// node killed with -9 leaves a link closed as `gone`.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { prepareDataDir, serverData, until, type ServerData } from "../../helpers/crash.ts";
import type { ChildServer } from "../../helpers/process.ts";
import { readSimSent } from "../../helpers/sim-sent.ts";
import { caller, pair, readLinks, spawnSimNetwork, type Caller, type SimNetworkProcess } from "../../helpers/sim-network.ts";

const ENV = { PARLEY_SEND_MIN_GAP_MS: "0", PARLEY_SEND_JITTER_MS: "0", PARLEY_JOB_POLL_MS: "50", PARLEY_LOG_LEVEL: "warn" };

let net: SimNetworkProcess;
let data: ServerData;
let node: ChildServer;
let call: Caller;

beforeAll(async () => {
  net = await spawnSimNetwork();
  data = await serverData("parley-simnet-node-");
  const token = await prepareDataDir(data);
  node = await data.spawn({ env: ENV, args: ["--sim-url", net.url] });
  call = caller(() => node, token);
});

afterAll(async () => {
  node?.proc.kill("SIGKILL");
  await node?.proc.exited;
  await net?.stop();
  await data?.close();
});

test("a node linked to the sim network process: pair, send, inbound and receipts flow through it", async () => {
  const sid = await pair(call, "919811150001");
  await until("link open", () => readLinks(net.dataDir).some((l) => l.sessionId === sid && l.event === "open"));

  // a send is accepted by the sim network process and lands in its log, not in the node's data dir
  const sent = await call("POST", "/api/v1/messages/send", { session_id: sid, to: "919822250001", body: "over the link" });
  expect(sent.status).toBe(202);
  const line = await until("sent", () => readSimSent(net.dataDir).find((e) => e.text === "over the link"));
  expect(line).toMatchObject({ sessionId: sid, to: "919822250001" });
  expect(existsSync(join(data.dataDir, "sim-sent.jsonl"))).toBe(false);
  const messageId = sent.body.data.id as string;
  await until("recorded as sent", async () => (await call("GET", `/api/v1/messages/${messageId}`)).body.data?.status === "sent");

  // receipts: by Parley's message id, forwarded by the node to the sim network and back over the link
  const delivered = await call("POST", `/api/sim/sessions/${sid}/receipt`, { messageId, status: "delivered" });
  expect(delivered.status).toBe(200);
  expect(delivered.body.data.networkMessageId).toStartWith("SIM");
  await until("delivered", async () => (await call("GET", `/api/v1/messages/${messageId}`)).body.data?.status === "delivered");
  expect((await call("POST", `/api/sim/sessions/${sid}/receipt`, { messageId, status: "read" })).status).toBe(200);
  await until("read", async () => (await call("GET", `/api/v1/messages/${messageId}`)).body.data?.status === "read");

  // an inbound message: answered once the node stored it
  const inbound = await call("POST", `/api/sim/sessions/${sid}/inbound`, { from: "919822250002", text: "hello node" });
  expect(inbound.status).toBe(200);
  const stored = await call("GET", `/api/v1/messages/${inbound.body.data.messageId}`);
  expect(stored.body.data).toMatchObject({ direction: "inbound", body: "hello node" });

  // the network's other routes answer through the node too
  expect((await call("POST", `/api/sim/sessions/${sid}/fail`, { count: 1 })).status).toBe(200);
  expect((await call("POST", "/api/sim/absent", { phones: ["919822250009"] })).status).toBe(200);
  const unknown = await call("POST", `/api/sim/sessions/${Bun.randomUUIDv7()}/scan`, { phoneNumber: "919811150009" });
  expect(unknown.status).toBe(404);
  // not waiting for a QR any more: 409, as with the sim inside the node
  expect((await call("POST", `/api/sim/sessions/${sid}/scan`, { phoneNumber: "919811150001" })).status).toBe(409);
}, 90_000);

test("groups through the sim network process: created there, listed, written in and sent to through the node", async () => {
  const sid = await pair(call, "919811150002", "groups");
  expect((await call("PATCH", `/api/v1/chatapp/${sid}`, { settings: { groups: true } })).status).toBe(200);
  const made = await call("POST", `/api/sim/sessions/${sid}/groups`, { name: "Crew", participants: ["919822250011", "919822250012"] });
  expect(made.status).toBe(201);
  const groupId = made.body.data.id as string;
  const listed = await call("GET", `/api/v1/chatapp/${sid}/groups`);
  expect(listed.body.data.map((g: { id: string }) => g.id)).toContain(groupId);

  const inbound = await call("POST", `/api/sim/sessions/${sid}/inbound`, { from: "919822250011", groupId, pushName: "Asha", text: "hi crew" });
  expect(inbound.status).toBe(200);
  const stored = await call("GET", `/api/v1/messages/${inbound.body.data.messageId}`);
  expect(stored.body.data).toMatchObject({ direction: "inbound", body: "hi crew", participant: "919822250011" });
  // a group this session is not in: 404 from the network process, as inside the node
  expect((await call("POST", `/api/sim/sessions/${sid}/inbound`, { from: "919822250011", groupId: "120363999999999999@g.us", text: "x" })).status).toBe(404);

  const sent = await call("POST", "/api/v1/messages/send", { session_id: sid, groupId, body: "hello group" });
  expect(sent.status).toBe(202);
  const line = await until("group send", () => readSimSent(net.dataDir).find((e) => e.text === "hello group"));
  expect(line).toMatchObject({ sessionId: sid, to: groupId });
}, 90_000);

test("kill -9 of the node: the sim network closes its link as gone", async () => {
  const before = readLinks(net.dataDir).filter((l) => l.event === "open").map((l) => l.sessionId);
  expect(before.length).toBeGreaterThan(0);
  node.proc.kill("SIGKILL");
  await node.proc.exited;
  const closes = await until("closed as gone", () => {
    const c = readLinks(net.dataDir).filter((l) => l.event === "close" && l.reason === "gone");
    return c.length >= new Set(before).size ? c : null;
  });
  expect(closes.map((c) => c.phone)).toContain("919811150001");
  expect(closes.every((c) => c.node.length > 0)).toBe(true);
}, 60_000);
