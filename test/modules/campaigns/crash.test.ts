// kill -9 of a real server process three times during a campaign: it completes and nobody is
// messaged twice (counted on the network side, the sim's sent log).
import { expect, test } from "bun:test";
import { expectDataOnEngine, prepareDataDir, serverData, until, type ServerData } from "../../helpers/crash.ts";
import { caller, type ChildServer } from "../../helpers/process.ts";
import { simSent } from "./helpers.ts";

const N = 60;
const ENV = { PARLEY_SEND_MIN_GAP_MS: "20", PARLEY_SEND_JITTER_MS: "0", PARLEY_JOB_POLL_MS: "50", PARLEY_LOG_LEVEL: "warn" };

/** Migrated data with a workspace, its owner, N contacts (every tenth opted out) and a known JWT secret. */
async function prepare(data: ServerData): Promise<{ token: string; contactIds: string[]; phones: string[] }> {
  const contactIds: string[] = [];
  const phones: string[] = [];
  const token = await prepareDataDir(data, async (db, wsId) => {
    const now = Date.now();
    const insert = db.prepare("INSERT INTO contacts (id, workspace_id, phone, name, opted_out, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)");
    for (let i = 0; i < N; i++) {
      const id = Bun.randomUUIDv7();
      const phone = `9175${String(1_000_000 + i).padStart(8, "0")}`;
      await insert.run(id, wsId, phone, `P${i}`, i % 10 === 0 ? 1 : 0, now, now);
      contactIds.push(id);
      phones.push(phone);
    }
  });
  return { token, contactIds, phones };
}

test(
  "SIGKILL three times during a campaign, restart each time: it completes and every opted-in contact got exactly one message",
  async () => {
    const data = await serverData("parley-campaign-crash-");
    const dataDir = data.dataDir;
    const { token, contactIds, phones } = await prepare(data);
    const start = () => data.spawn({ env: ENV });
    let server: ChildServer = await start();
    const call = caller(() => server, token);
    const ours = () => simSent(dataDir).filter((s) => phones.includes(s.to));
    try {
      const sid = (await call("POST", "/api/v1/chatapp", { name: "crash" })).body.data.id as string;
      expect((await call("POST", `/api/v1/chatapp/${sid}/connect`)).status).toBe(200);
      await until("QR", async () => (await call("GET", `/api/v1/chatapp/${sid}/qr`)).status === 200, 60_000);
      expect((await call("POST", `/api/sim/sessions/${sid}/scan`, { phoneNumber: "919811111111" })).status).toBe(200);
      await until("connected", async () => (await call("GET", `/api/v1/chatapp/${sid}/status`)).body.data?.connected === true, 60_000);
      const created = await call("POST", "/api/v1/campaigns", {
        name: "crash",
        sessionIds: [sid],
        message: { type: "text", body: "Hi {{name}}" },
        audience: { contactIds },
        pacing: { perMinute: 600, jitterPercent: 50, warmup: false },
      });
      expect(created.status).toBe(201);
      const id = created.body.data.id as string;
      expect((await call("POST", `/api/v1/campaigns/${id}/start`)).status).toBe(200);
      for (const atLeast of [5, 20, 35]) {
        await until(`${atLeast} sent`, () => ours().length >= atLeast, 60_000);
        server.proc.kill("SIGKILL");
        await server.proc.exited;
        server = await start();
      }
      const done = await until("completed", async () => {
        const c = (await call("GET", `/api/v1/campaigns/${id}`)).body.data;
        return c?.status === "completed" ? c : null;
      }, 60_000);
      expect(done.stats).toEqual({ total: N, pending: 0, sent: 54, delivered: 0, read: 0, failed: 0, skipped: 6 });
      await Bun.sleep(300); // a late duplicate would show up here
      const counts = new Map<string, number>();
      for (const s of ours()) counts.set(s.to, (counts.get(s.to) ?? 0) + 1);
      phones.forEach((p, i) => expect(`${p}: ${counts.get(p) ?? 0}`).toBe(`${p}: ${i % 10 === 0 ? 0 : 1}`));
      expect(ours().find((s) => s.to === phones[1])?.text).toBe("Hi P1");
      // every recipient points at its one message, and that message at the campaign
      const sentRecipients = (await call("GET", `/api/v1/campaigns/${id}/recipients?status=sent&limit=100`)).body.data as { messageId: string }[];
      expect(new Set(sentRecipients.map((r) => r.messageId)).size).toBe(54);
      const m = await call("GET", `/api/v1/messages/${sentRecipients[0]!.messageId}`);
      expect(m.body.data.campaignId).toBe(id);
      await expectDataOnEngine(data);
    } finally {
      server.proc.kill("SIGKILL");
      await server.proc.exited;
      await data.close();
    }
  },
  180_000,
);
