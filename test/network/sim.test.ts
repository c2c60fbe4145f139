import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DriverEvent } from "../../src/network/driver.ts";
import { SimDriver, type SimOptions } from "../../src/network/sim/driver.ts";

function sim(opts: Partial<SimOptions> = {}) {
  const d = new SimDriver({ latencyMs: 1, qrRotateMs: 15, qrMaxRotations: 3, ...opts });
  const events: DriverEvent[] = [];
  d.onEvent((e) => events.push(e));
  return { d, events };
}

async function until(cond: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await Bun.sleep(2);
  }
}

const types = (events: DriverEvent[]) => events.map((e) => (e.type === "disconnected" ? `disconnected:${e.reason}` : e.type));

describe("sim network (docs/network-drivers.md)", () => {
  test("connect is asynchronous: QRs rotate like the real network's, then pairing times out", async () => {
    const { d, events } = sim();
    await d.connect("s1", { credentials: null });
    expect(events).toEqual([]); // nothing happens inside the call
    await until(() => events.some((e) => e.type === "disconnected"));
    expect(types(events)).toEqual(["qr", "qr", "qr", "disconnected:pairing_timeout"]);
    const qrs = events.filter((e) => e.type === "qr").map((e) => (e as { qr: string }).qr);
    expect(new Set(qrs).size).toBe(3);
    expect(d.stateOf("s1")).toBeUndefined();
    await d.shutdown();
  });

  test("scan: credentials first, then connected with the phone number; sends get ids", async () => {
    const { d, events } = sim({ qrMaxRotations: 100 });
    await d.connect("s1", { credentials: null });
    await until(() => d.currentQr("s1") !== undefined);
    d.scan("s1", "919812345678");
    await until(() => events.some((e) => e.type === "connected"));
    expect(types(events)).toEqual(["qr", "credentials", "connected"]);
    expect(events.at(-1)).toEqual({ type: "connected", sessionId: "s1", phoneNumber: "919812345678" });
    const sent = await d.send("s1", { to: "919800000001", type: "text", text: "hi" });
    expect(await d.hasSent("s1", sent.networkMessageId)).toBe(true);
    await d.shutdown();
  });

  test("automatic receipts: delivered, then read", async () => {
    const { d, events } = sim({ autoReceipts: true, receiptDelayMs: 3, qrMaxRotations: 100 });
    await d.connect("s1", { credentials: null });
    await until(() => d.currentQr("s1") !== undefined);
    d.scan("s1", "919812345678");
    await until(() => d.stateOf("s1") === "connected" && events.some((e) => e.type === "connected"));
    const { networkMessageId } = await d.send("s1", { to: "919800000001", type: "text", text: "hi" });
    await until(() => events.filter((e) => e.type === "receipt").length === 2);
    expect(events.filter((e) => e.type === "receipt").map((e) => [(e as any).networkMessageId, (e as any).status])).toEqual([
      [networkMessageId, "delivered"],
      [networkMessageId, "read"],
    ]);
    await d.shutdown();
  });

  test("with a data dir, linked devices survive a restart of the network", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "parley-sim-"));
    const first = sim({ dataDir, qrMaxRotations: 100 });
    await first.d.connect("s1", { credentials: null });
    await until(() => first.d.currentQr("s1") !== undefined);
    first.d.scan("s1", "919812345678");
    await until(() => first.events.some((e) => e.type === "connected"));
    const creds = (first.events.find((e) => e.type === "credentials") as { credentials: string }).credentials;
    await first.d.shutdown();
    expect(JSON.parse(readFileSync(join(dataDir, "sim-network.json"), "utf8")).devices[creds]).toBe("919812345678");

    const second = sim({ dataDir });
    await second.d.connect("s1", { credentials: creds });
    await until(() => second.events.length > 0);
    expect(second.events).toEqual([{ type: "connected", sessionId: "s1", phoneNumber: "919812345678" }]);
    await second.d.shutdown();

  });

  test("credentials the network no longer knows: wiped and logged_out, like the real network", async () => {
    const { d, events } = sim();
    await d.connect("s1", { credentials: "simcred_gone" });
    await until(() => events.length === 2);
    expect(types(events)).toEqual(["credentials", "disconnected:logged_out"]);
    expect((events[0] as { credentials: unknown }).credentials).toBeNull();
  });

  test("logout unlinks, replaced keeps the link, disconnect({logout}) unlinks, a plain disconnect keeps it", async () => {
    const { d, events } = sim({ qrMaxRotations: 100 });
    const link = async (id: string): Promise<string> => {
      await d.connect(id, { credentials: null });
      await until(() => d.currentQr(id) !== undefined);
      d.scan(id, "919800000009");
      await until(() => events.some((e) => e.type === "connected" && e.sessionId === id));
      return (events.find((e) => e.type === "credentials" && e.sessionId === id) as { credentials: string }).credentials;
    };
    const reconnects = async (id: string, credentials: string) => {
      const before = events.length;
      await d.connect(id, { credentials });
      await until(() => events.length > before);
      const e = events.at(-1)!;
      await d.disconnect(id, { logout: false });
      return e.type === "connected";
    };
    const a = await link("a");
    d.logout("a", "replaced");
    await until(() => events.some((e) => e.type === "disconnected" && e.sessionId === "a"));
    expect(events.some((e) => e.type === "credentials" && e.sessionId === "a" && e.credentials === null)).toBe(false);
    expect(await reconnects("a2", a)).toBe(true);

    const b = await link("b");
    d.logout("b", "logged_out");
    await until(() => events.some((e) => e.type === "disconnected" && e.sessionId === "b"));
    expect(await reconnects("b2", b)).toBe(false);

    const c = await link("c");
    await d.disconnect("c", { logout: false });
    expect(await reconnects("c2", c)).toBe(true);
    const c3 = await link("c3");
    await d.disconnect("c3", { logout: true });
    expect(await reconnects("c4", c3)).toBe(false);
    await d.shutdown();
  });

  test("a transient drop announces connection_lost with willReconnect, then connects again", async () => {
    const { d, events } = sim({ qrMaxRotations: 100 });
    await d.connect("s1", { credentials: null });
    await until(() => d.currentQr("s1") !== undefined);
    d.scan("s1", "919812345678");
    await until(() => events.some((e) => e.type === "connected"));
    d.drop("s1", 5);
    await until(() => events.filter((e) => e.type === "connected").length === 2);
    const drop = events.find((e) => e.type === "disconnected")!;
    expect(drop).toMatchObject({ reason: "connection_lost", willReconnect: true });
    await d.shutdown();
  });
});
