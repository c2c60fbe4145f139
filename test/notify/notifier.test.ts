import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { NotifyError } from "../../src/notify/notifier.ts";
import { ChannelNotifier } from "../../src/notify/channel-notifier.ts";
import { listOutbox } from "../../src/notify/outbox.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { createWorkspace } from "../helpers/fixtures.ts";
import { mimeParts, startSmtpServer } from "./smtp-server.ts";

const mail = (to: string) => ({ to, subject: "Hello there", text: "Plain body 123456", html: "<p>HTML body <b>123456</b></p>", kind: "verification" });
const records = async (t: TestApp) => (await t.deps.db.prepare("SELECT * FROM notifications ORDER BY created_at, id").all()) as any[];

describe("log channel (no SMTP configured, mobile channel log)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  test("the default notifier of the runtime is the channel notifier", () => {
    expect(t.deps.notifier).toBeInstanceOf(ChannelNotifier);
    expect((t.deps.notifier as ChannelNotifier).emailChannel).toBe("log");
  });

  test("mail and mobile messages are recorded with their text: the operator's outbox", async () => {
    await t.deps.notifier.sendEmail(mail("a@example.com"));
    await t.deps.notifier.sendMobile({ to: "919800000001", text: "Your code is 654321", kind: "otp" });
    const rows = await records(t);
    expect(rows.map((r) => [r.medium, r.channel, r.status, r.recipient])).toEqual([
      ["email", "log", "sent", "a@example.com"],
      ["mobile", "log", "sent", "919800000001"],
    ]);
    const outbox = await listOutbox(t.deps.db);
    expect(outbox[0]).toMatchObject({ medium: "mobile", to: "919800000001", text: "Your code is 654321", kind: "otp" });
    expect(outbox[1]).toMatchObject({ medium: "email", subject: "Hello there", text: "Plain body 123456" });
    expect(await listOutbox(t.deps.db, { to: "a@example.com" })).toHaveLength(1);
  });
});

describe("SMTP channel", () => {
  test("a real SMTP server receives a plain-text and an HTML part; the record keeps no body", async () => {
    const smtp = await startSmtpServer();
    const t = await createTestApp({ config: { smtpUrl: smtp.url, mailFrom: "Parley <no-reply@parley.test>" } });
    try {
      await t.deps.notifier.sendEmail(mail("b@example.com"));
      expect(smtp.mails).toHaveLength(1);
      expect(smtp.mails[0]!.to).toEqual(["b@example.com"]);
      expect(smtp.mails[0]!.from).toBe("no-reply@parley.test");
      const parts = mimeParts(smtp.mails[0]!.raw);
      expect(parts["text/plain"]).toContain("Plain body 123456");
      expect(parts["text/html"]).toContain("<b>123456</b>");
      expect(await records(t)).toEqual([expect.objectContaining({ channel: "smtp", status: "sent", body: null, subject: "Hello there" })]);
      expect(await listOutbox(t.deps.db)).toEqual([]);
    } finally {
      await t.close();
      await smtp.close();
    }
  });

  test("an unreachable server: NotifyError, recorded as failed with the error", async () => {
    const smtp = await startSmtpServer();
    await smtp.close(); // the port is now closed
    const t = await createTestApp({ config: { smtpUrl: smtp.url } });
    try {
      const err = await t.deps.notifier.sendEmail(mail("c@example.com")).catch((e) => e);
      expect(err).toBeInstanceOf(NotifyError);
      const [row] = await records(t);
      expect(row).toMatchObject({ channel: "smtp", status: "failed", recipient: "c@example.com", body: null });
      expect(row.error).toBeString();
    } finally {
      await t.close();
    }
  });
});

describe("session channel", () => {
  let t: TestApp;
  const senderId = Bun.randomUUIDv7();
  beforeAll(async () => {
    t = await createTestApp({ config: { mobileChannel: "session", mobileSession: senderId } });
  });
  afterAll(() => t.close());

  async function insertSession(workspaceId: string, id: string, name: string, status: string) {
    const now = t.clock.now().getTime();
    await t.deps.db
      .prepare("INSERT INTO chat_sessions (id, workspace_id, name, status, phone_number, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(id, workspaceId, name, status, status === "connected" ? "919811111111" : null, now, now);
  }

  test("not connected: the send fails and is recorded with its error", async () => {
    const ws = await createWorkspace(t);
    await insertSession(ws.id, senderId, "otp-sender", "disconnected");
    const err = await t.deps.notifier.sendMobile({ to: "919822222222", text: "Your code is 111111", kind: "otp" }).catch((e) => e);
    expect(err).toBeInstanceOf(NotifyError);
    expect(err.message).toContain("not connected");
    expect((await records(t)).at(-1)).toMatchObject({ channel: "session", status: "failed", error: expect.stringContaining("not connected"), body: null });
    await t.deps.db.prepare("DELETE FROM chat_sessions").run();
  });

  test("over a paired sim session: the code goes out as a text message; the record keeps no code", async () => {
    const ws = await createWorkspace(t);
    const id = senderId;
    const qr = new Promise<void>((resolve) => {
      const off = t.sim.onEvent((e) => {
        if (e.type === "qr" && e.sessionId === id) {
          off();
          resolve();
        }
      });
    });
    await t.sim.connect(id, { credentials: null });
    await qr;
    t.sim.scan(id, "919811111111");
    await insertSession(ws.id, id, "otp-sender", "connected");
    await Bun.sleep(5); // the sim's connected event
    await t.deps.notifier.sendMobile({ to: "919833333333", text: "Your code is 424242", kind: "otp" });
    expect(t.sim.sent).toHaveLength(1);
    expect(t.sim.sent[0]).toMatchObject({ sessionId: id, message: { to: "919833333333", type: "text", text: "Your code is 424242" } });
    const last = (await records(t)).at(-1);
    expect(last).toMatchObject({ channel: "session", status: "sent", recipient: "919833333333", body: null });
    expect(JSON.stringify(await records(t))).not.toContain("424242");
  });

  test("another tenant's session named like the configured value gets no codes (lookup by id only)", async () => {
    // runs after the test above, which paired the configured session
    const squatter = await createWorkspace(t);
    // a tenant names its own connected session after the configured value: it must not become the sender
    const rogue = Bun.randomUUIDv7();
    const qr = new Promise<void>((resolve) => {
      const off = t.sim.onEvent((e) => {
        if (e.type === "qr" && e.sessionId === rogue) {
          off();
          resolve();
        }
      });
    });
    await t.sim.connect(rogue, { credentials: null });
    await qr;
    t.sim.scan(rogue, "919844444444");
    await insertSession(squatter.id, rogue, senderId, "connected");
    await Bun.sleep(5);
    const before = t.sim.sent.length;
    await t.deps.notifier.sendMobile({ to: "919855555555", text: "Your code is 777777", kind: "otp" });
    expect(t.sim.sent.slice(before)).toEqual([expect.objectContaining({ sessionId: senderId })]);
    expect(t.sim.sent.some((s) => s.sessionId === rogue)).toBe(false);
  });

  test("the session channel needs a session id", async () => {
    await expect(createTestApp({ config: { mobileChannel: "session" } })).rejects.toThrow(/mobileSession/);
  });

  test("a session name instead of an id stops start-up with a config error", () => {
    let err: unknown;
    try {
      loadConfig({ mobileChannel: "session", mobileSession: "otp-sender" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain("mobileSession");
    expect((err as Error).message).toContain("session id");
    expect((err as Error).message).toContain("parley sessions list");
    expect(loadConfig({ mobileSession: senderId }).mobileSession).toBe(senderId);
  });
});

describe("http channel (generic SMS gateway)", () => {
  test("JSON POST {to, text}; a non-2xx answer is a recorded failure", async () => {
    const received: unknown[] = [];
    let status = 200;
    const gateway = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        received.push({ method: req.method, type: req.headers.get("content-type"), body: await req.json() });
        return new Response("ok", { status });
      },
    });
    const t = await createTestApp({ config: { mobileChannel: "http", mobileHttpUrl: `http://127.0.0.1:${gateway.port}/sms` } });
    try {
      await t.deps.notifier.sendMobile({ to: "919844444444", text: "Your code is 777777", kind: "otp" });
      expect(received).toEqual([{ method: "POST", type: "application/json", body: { to: "919844444444", text: "Your code is 777777" } }]);
      status = 503;
      const err = await t.deps.notifier.sendMobile({ to: "919844444444", text: "Your code is 888888", kind: "otp" }).catch((e) => e);
      expect(err).toBeInstanceOf(NotifyError);
      expect((await records(t)).map((r) => [r.channel, r.status, r.error, r.body])).toEqual([
        ["http", "sent", null, null],
        ["http", "failed", "SMS gateway answered 503", null],
      ]);
    } finally {
      await t.close();
      gateway.stop(true);
    }
  });
});
