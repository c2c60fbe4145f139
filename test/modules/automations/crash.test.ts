import { expect, test } from "bun:test";
import { expectDataOnEngine, prepareDataDir, serverData, until } from "../../helpers/crash.ts";
import { caller, type ChildServer } from "../../helpers/process.ts";
import { readSimSent } from "../../helpers/sim-sent.ts";

// a gap between two sends of a session keeps an answer queued for a while after it was decided
const ENV = { PARLEY_SEND_MIN_GAP_MS: "1500", PARLEY_SEND_JITTER_MS: "0", PARLEY_JOB_POLL_MS: "50", PARLEY_LOG_LEVEL: "warn" };
// on PostgreSQL a restarted server leaves the dead one's claims to their leases (another node may
// hold them): a job claimed just before the kill runs again when its provisional lease (60 s) ends
const CLAIM_WAIT = 90_000;
const ANSWER = "Our prices: example.com/prices";

test(
  "a keyword auto-reply answers PRICE exactly once per cooldown across kill -9 between the inbound message and the answer",
  async () => {
    const data = await serverData("parley-auto-crash-");
    const token = await prepareDataDir(data);
    let server: ChildServer = await data.spawn({ env: ENV });
    const call = caller(() => server, token);
    const answersTo = (phone: string) => readSimSent(data.dataDir).filter((e) => e.to === phone && e.text === ANSWER).length;
    let sid = "";
    const connected = () => until("connected", async () => (await call("GET", `/api/v1/chatapp/${sid}/status`)).body.data?.connected === true);
    const restart = async () => {
      server.proc.kill("SIGKILL");
      await server.proc.exited;
      server = await data.spawn({ env: ENV });
      await connected();
    };
    // after a restart the stored status says connected before this node has taken its lease and
    // linked again: the sim answers 409 until then, so the message is written again every 200 ms
    const price = async (from: string) => {
      const status = await until("the inbound taken", async () => {
        const r = await call("POST", `/api/sim/sessions/${sid}/inbound`, { from, text: "  price " });
        if (r.status !== 409) return r.status;
        await Bun.sleep(200);
      });
      expect(status).toBe(200);
    };
    try {
      const created = await call("POST", "/api/v1/chatapp", { name: "auto" });
      sid = created.body.data.id;
      expect((await call("POST", `/api/v1/chatapp/${sid}/connect`)).status).toBe(200);
      await until("QR", async () => (await call("GET", `/api/v1/chatapp/${sid}/qr`)).status === 200);
      expect((await call("POST", `/api/sim/sessions/${sid}/scan`, { phoneNumber: "919811111111" })).status).toBe(200);
      await connected();
      const auto = await call("POST", "/api/v1/automations", { name: "Prices", trigger: { type: "keyword", keywords: ["PRICE"] }, reply: { body: ANSWER }, cooldownMinutes: 60 });
      expect(auto.status).toBe(201);

      // 1. killed while the answer certainly waits: a message sent by hand just before holds the session's gap
      const a = "919822200001";
      expect((await call("POST", "/api/v1/messages/send", { session_id: sid, to: "919822200099", body: "by hand" })).status).toBe(202);
      await until("the hand-sent message out", () => readSimSent(data.dataDir).some((e) => e.text === "by hand"));
      await price(a);
      expect(answersTo(a)).toBe(0);
      await restart();
      await until("a's answer", () => answersTo(a) >= 1, CLAIM_WAIT);

      // 2. killed the moment the inbound message is stored (the job may or may not have run)
      const b = "919822200002";
      await price(b);
      await restart();
      await until("b's answer", () => answersTo(b) >= 1, CLAIM_WAIT);

      // 3. killed right after the answer reached the network (before the job or the sender recorded it, or after)
      const c = "919822200003";
      await price(c);
      await until("c's answer", () => answersTo(c) >= 1, 10_000);
      await restart();

      // within the cooldown, PRICE again is not answered, on the restarted server either
      for (const p of [a, b, c]) await price(p);
      await Bun.sleep(2500); // past the send gap: a wrong answer would be out by now
      await until("queue empty", async () => (await call("GET", "/api/v1/messages?status=queued")).body.data?.length === 0);
      for (const p of [a, b, c]) expect(`${p}: ${answersTo(p)}`).toBe(`${p}: 1`);
      const answers = (await call("GET", "/api/v1/messages?direction=outbound&limit=100")).body.data.filter((m: { automationId: string | null }) => m.automationId);
      expect(answers.map((m: { to: string }) => m.to).sort()).toEqual([a, b, c]);
      expect(new Set(answers.map((m: { automationId: string }) => m.automationId))).toEqual(new Set([auto.body.data.id]));
    } catch (err) {
      const db = data.store();
      console.log(JSON.stringify(await db.prepare("SELECT kind, status, attempts, run_at, last_error, payload FROM jobs").all(), null, 1));
      console.log(JSON.stringify(await db.prepare("SELECT direction, status, phone, body, automation_id, error_code, attempts FROM messages").all(), null, 1));
      console.log(JSON.stringify(await db.prepare("SELECT * FROM automation_replies").all()));
      console.log(Date.now(), readSimSent(data.dataDir));
      throw err;
    } finally {
      server.proc.kill("SIGKILL");
      await server.proc.exited;
    }
    await expectDataOnEngine(data);
    await data.close();
  },
  300_000,
);
