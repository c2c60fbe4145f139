import { expect, test } from "bun:test";
import { expectDataOnEngine, prepareDataDir, serverData, until } from "../../helpers/crash.ts";
import { caller, type ChildServer } from "../../helpers/process.ts";
import { readSimSent } from "../../helpers/sim-sent.ts";

// A scheduled send survives a real process restart: the server is killed (SIGKILL) while the
// message waits, a new server starts on the same data (SQLite file or PostgreSQL database),
// and the message goes out at its time; a second one is cancelled after the restart and never
// goes out.

const ENV = { PARLEY_JOB_POLL_MS: "100", PARLEY_LOG_LEVEL: "warn", PARLEY_RATE_LIMIT_PER_MINUTE: "1000000" };

test("a scheduled message is sent at its time after a SIGKILL and restart; a cancelled one is not", async () => {
  const data = await serverData("parley-scheduled-");
  const token = await prepareDataDir(data);
  let server: ChildServer = await data.spawn({ env: ENV });
  const api = caller(() => server, token);
  try {
    const created = await api("POST", "/api/v1/chatapp", { name: "scheduled" });
    expect(created.status).toBe(201);
    const sessionId: string = created.body.data.id;
    await api("POST", `/api/v1/chatapp/${sessionId}/connect`);
    await until("QR", async () => (await api("GET", `/api/v1/chatapp/${sessionId}/status`)).body.data?.status === "qr_pending");
    await api("POST", `/api/sim/sessions/${sessionId}/scan`, { phoneNumber: "919812300000" });
    await until("connected", async () => (await api("GET", `/api/v1/chatapp/${sessionId}/status`)).body.data?.status === "connected");

    const sendAt = new Date(Date.now() + 8000).toISOString();
    const keep = await api("POST", "/api/v1/messages/send", { session_id: sessionId, to: "919812300001", body: "scheduled before the crash", sendAt });
    const drop = await api("POST", "/api/v1/messages/send", { session_id: sessionId, to: "919812300002", body: "cancelled after the restart", sendAt });
    expect([keep.status, keep.body.data.status, drop.status]).toEqual([202, "scheduled", 202]);

    server.proc.kill("SIGKILL");
    await server.proc.exited;
    // with no server running, the database says what the crash left: both still waiting
    const rows = await data.store().prepare<{ status: string }>("SELECT status FROM messages WHERE id IN (?, ?)").all(keep.body.data.id, drop.body.data.id);
    expect(rows.map((r) => r.status)).toEqual(["scheduled", "scheduled"]);
    server = await data.spawn({ env: ENV });

    const cancelled = await api("DELETE", `/api/v1/messages/${drop.body.data.id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data.status).toBe("cancelled");
    // the session comes back on its own; the job queues the message at its time and the sender sends it
    await until("the scheduled message sent", async () => ["sent", "delivered", "read"].includes((await api("GET", `/api/v1/messages/${keep.body.data.id}`)).body.data?.status), 30_000);
    const texts = readSimSent(data.dataDir).map((x) => x.text);
    expect(texts).toContain("scheduled before the crash");
    expect(texts).not.toContain("cancelled after the restart");
    expect((await api("GET", `/api/v1/messages/${drop.body.data.id}`)).body.data.status).toBe("cancelled");
    await expectDataOnEngine(data);
  } finally {
    await data.closeStore();
    await server.stop("SIGTERM");
    await data.close();
  }
}, 90_000);
