import { afterAll, beforeAll, expect, test } from "bun:test";
import { pruneChecks } from "../../../src/modules/numbers/repo.ts";
import { harness, type Harness } from "./harness.ts";

// The number check over baileys' onWhatsApp (rc14: it answers with the accounts it found, as
// {jid, exists}), through the route.

let h: Harness;
beforeAll(async () => {
  h = await harness({ driver: { watchdogMs: 0 } });
});
afterAll(async () => {
  await h.rt.close();
});

test("numbers missing from onWhatsApp's answer are not on the network; one query for the batch", async () => {
  const { id, sock } = await h.linkedSession();
  sock.absent.add("919833300002");
  const r = await h.call("POST", `/api/v1/chatapp/${id}/check`, { phones: ["919833300001", "919833300002"] });
  expect(r.status).toBe(200);
  expect(r.body.data).toEqual([
    { phone: "919833300001", onNetwork: true },
    { phone: "919833300002", onNetwork: false },
  ]);
  expect(sock.onWhatsAppCalls).toEqual([["919833300001@s.whatsapp.net", "919833300002@s.whatsapp.net"]]);
  // expired answers are pruned
  expect(await pruneChecks(h.rt.deps.db, h.clock.now().getTime() + 86_400_001)).toBe(2);
});

test("an answer naming an account under another number (the network normalised it) leaves the unmatched numbers unknown, not absent", async () => {
  const { id, sock } = await h.linkedSession();
  sock.onWhatsApp = async (...jids: string[]) => (sock.onWhatsAppCalls.push(jids), [{ jid: "5511987654321@s.whatsapp.net", exists: true }]);
  const r = await h.call("POST", `/api/v1/chatapp/${id}/check`, { phones: ["551187654321"] });
  expect(r.body.data).toEqual([{ phone: "551187654321", onNetwork: true }]);
  // unknown is not cached
  expect(await h.rt.deps.db.prepare("SELECT count(*) AS n FROM number_checks WHERE phone = '551187654321'").get()).toEqual({ n: 0 });
  // no answer at all: 502 in the envelope
  sock.onWhatsApp = async () => undefined as never;
  const none = await h.call("POST", `/api/v1/chatapp/${id}/check`, { phones: ["919833300009"] });
  expect(none.status).toBe(502);
  expect(none.body.code).toBe("CHATAPP_UNAVAILABLE");
});
