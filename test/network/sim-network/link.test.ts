// The link protocol between a node's driver and the sim network, both in this process: one live
// link per session and per number, logouts from either side, media on the wire, relinking after
// the sim network restarts, and the link log.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DriverEvent } from "../../../src/network/driver.ts";
import { RemoteSimDriver } from "../../../src/network/sim-network/remote-driver.ts";
import { startSimNetwork, type SimNetwork } from "../../../src/network/sim-network/server.ts";
import { until } from "../../helpers/crash.ts";
import { readLinks } from "../../helpers/sim-network.ts";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function network(dataDir = mkdtempSync(join(tmpdir(), "parley-simlink-")), port = 0): SimNetwork {
  const net = startSimNetwork({ port, dataDir, sim: { latencyMs: 1 } });
  cleanup.push(() => net.stop());
  return net;
}

function node(net: SimNetwork, name: string) {
  const driver = new RemoteSimDriver({ url: net.url, node: name, relinkMs: 50 });
  const events: DriverEvent[] = [];
  driver.onEvent((e) => events.push(e));
  cleanup.push(() => driver.shutdown());
  const last = (sessionId: string, type: DriverEvent["type"]) => events.filter((e) => e.sessionId === sessionId && e.type === type).at(-1) as any;
  return { driver, events, last };
}

/** Links session `id` on `n` by QR: returns the stored link (credentials). */
async function pairOn(net: SimNetwork, n: ReturnType<typeof node>, id: string, phone: string): Promise<string> {
  await n.driver.connect(id, { credentials: null });
  await until("qr", () => n.last(id, "qr"));
  expect(await n.driver.simControl.stateOf(id)).toBe("qr");
  await n.driver.simControl.scan(id, phone);
  await until("connected", () => n.last(id, "connected"));
  return n.last(id, "credentials").credentials;
}

test("pairing, a send with media and receipts go over the link; the sent log is the network's", async () => {
  const net = network();
  const a = node(net, "a");
  await pairOn(net, a, "s1", "919800000101");
  const data = new Uint8Array([1, 2, 3, 250]);
  const { networkMessageId } = await a.driver.send("s1", { to: "919800000999", type: "image", text: "pic", media: { data, mimeType: "image/png", filename: "p.png" }, clientMessageId: "c1" });
  expect(net.sim.sent.at(-1)!.message.media!.data).toEqual(data);
  // a resend with the same client id is recognised, not delivered again
  expect((await a.driver.send("s1", { to: "919800000999", type: "text", text: "pic", clientMessageId: "c1" })).networkMessageId).toBe(networkMessageId);
  expect(net.sim.sent.length).toBe(1);
  await a.driver.simControl.receipt("s1", networkMessageId, "read");
  const receipt = await until("receipt", () => a.last("s1", "receipt"));
  expect(receipt.at).toBeInstanceOf(Date);
  expect(await a.driver.simControl.hasSent("s1", networkMessageId)).toBe(true);
  const nid = await a.driver.simControl.inbound("s1", { from: "919800000998", type: "text", text: "hi" });
  expect((await until("inbound", () => a.last("s1", "inbound"))).message).toMatchObject({ networkMessageId: nid, text: "hi" });
  expect(await a.driver.checkNumbers("s1", ["919800000997"])).toEqual([{ phone: "919800000997", onNetwork: true }]);
});

test("the same session linked from a second node: the first link is replaced (440) and the log says so", async () => {
  const net = network();
  const a = node(net, "a");
  const b = node(net, "b");
  const creds = await pairOn(net, a, "s1", "919800000201");
  await b.driver.connect("s1", { credentials: creds });
  const gone = await until("replaced", () => a.last("s1", "disconnected"));
  expect(gone).toMatchObject({ reason: "replaced", willReconnect: false });
  await until("b connected", () => b.last("s1", "connected"));
  // the replaced node's sends are refused; the new holder's go out
  await expect(a.driver.send("s1", { to: "919800000999", type: "text", text: "late" })).rejects.toMatchObject({ code: "not_connected" });
  await b.driver.send("s1", { to: "919800000999", type: "text", text: "now" });
  await until("logged", () => readLinks(net.sim.opts.dataDir!).some((l) => l.event === "close"));
  const links = readLinks(net.sim.opts.dataDir!).map(({ sessionId, phone, node, event, reason }) => ({ sessionId, phone, node, event, reason }));
  expect(links).toEqual([
    { sessionId: "s1", phone: null, node: "a", event: "open", reason: undefined },
    { sessionId: "s1", phone: "919800000201", node: "a", event: "close", reason: "replaced" },
    { sessionId: "s1", phone: "919800000201", node: "b", event: "open", reason: undefined },
  ]);
});

test("logouts: the node's own unlinks the device (closed as logout); the network's reaches the node with its reason", async () => {
  const net = network();
  const a = node(net, "a");
  const creds = await pairOn(net, a, "s1", "919800000301");
  await a.driver.disconnect("s1", { logout: true });
  await until("closed", () => readLinks(net.sim.opts.dataDir!).some((l) => l.event === "close"));
  expect(readLinks(net.sim.opts.dataDir!).at(-1)).toMatchObject({ event: "close", reason: "logout", phone: "919800000301" });
  // the device is gone: reconnecting with its link fails as logged out
  await a.driver.connect("s1", { credentials: creds });
  expect(await until("logged out", () => a.last("s1", "disconnected"))).toMatchObject({ reason: "logged_out", willReconnect: false });

  await pairOn(net, a, "s2", "919800000302");
  await a.driver.simControl.logout("s2", "banned");
  expect(await until("banned", () => a.last("s2", "disconnected"))).toMatchObject({ reason: "banned", willReconnect: false });
  expect(a.last("s2", "credentials").credentials).toBeNull();
  await until("closed", () => readLinks(net.sim.opts.dataDir!).some((l) => l.sessionId === "s2" && l.event === "close"));
  expect(readLinks(net.sim.opts.dataDir!).filter((l) => l.sessionId === "s2").at(-1)).toMatchObject({ reason: "logout" });

  // a plain disconnect (shutdown, session stopped) is `closed`, and the link stays valid
  const creds3 = await pairOn(net, a, "s3", "919800000303");
  await a.driver.disconnect("s3", { logout: false });
  await until("closed", () => readLinks(net.sim.opts.dataDir!).some((l) => l.sessionId === "s3" && l.event === "close"));
  expect(readLinks(net.sim.opts.dataDir!).filter((l) => l.sessionId === "s3").at(-1)).toMatchObject({ reason: "closed" });
  await a.driver.connect("s3", { credentials: creds3 });
  await until("reconnected", () => a.events.filter((e) => e.sessionId === "s3" && e.type === "connected").length === 2);
});

test("the sim network restarts: the node's link drops (connection_lost, retried) and comes back with its stored link", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-simlink-"));
  const first = startSimNetwork({ port: 0, dataDir, sim: { latencyMs: 1 } });
  const a = node(first, "a");
  await pairOn(first, a, "s1", "919800000401");
  await first.stop();
  expect(await until("dropped", () => a.last("s1", "disconnected"))).toMatchObject({ reason: "connection_lost", willReconnect: true });
  network(dataDir, first.port); // the same address and state
  await until("connected again", () => a.events.filter((e) => e.sessionId === "s1" && e.type === "connected").length === 2);
  await a.driver.send("s1", { to: "919800000999", type: "text", text: "after the restart" });
});

test("the control route refuses unknown operations and bad bodies; a link needs a session", async () => {
  const net = network();
  const bad = await fetch(`${net.url}/control`, { method: "POST", body: JSON.stringify({ op: "constructor", args: [] }) });
  expect(bad.status).toBe(400);
  expect((await fetch(`${net.url}/control`, { method: "POST", body: "{" })).status).toBe(400);
  expect((await fetch(`${net.url}/link`)).status).toBe(400);
  expect((await fetch(`${net.url}/health`)).status).toBe(200);
});

test("a sim network that cannot be reached: connect fails at once (transient), nothing is retried behind the caller's back", async () => {
  const closed = Bun.serve({ port: 0, fetch: () => new Response("") });
  const url = `http://127.0.0.1:${closed.port}`;
  closed.stop(true); // a port nobody listens on
  const driver = new RemoteSimDriver({ url, node: "a", relinkMs: 10 });
  const events: DriverEvent[] = [];
  driver.onEvent((e) => events.push(e));
  await expect(driver.connect("s1", { credentials: null })).rejects.toMatchObject({ code: "sim_unreachable", transient: true });
  await expect(driver.simControl.stateOf("s1")).rejects.toMatchObject({ code: "sim_unreachable" });
  await Bun.sleep(50);
  expect(events).toEqual([]);
  await driver.shutdown();
});
