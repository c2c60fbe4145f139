import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AppEvent } from "../../../src/events/bus.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { png } from "../media/samples.ts";
import { connectedSession, recordEvents, waitFor } from "./helpers.ts";

// The network has already acknowledged an inbound message: a media file or media row that
// cannot be stored must not cost the message itself.

let t: TestApp;
let ws: TestWorkspace;
let session: { id: string; phone: string };
beforeAll(async () => {
  t = await createTestApp();
  ws = await createWorkspace(t);
  session = await connectedSession(t, ws);
});
afterAll(() => t.close());

const received = (events: AppEvent[]) => events.filter((e) => e.event === "message_received");
const storedRows = async (phone: string) =>
  (await t.deps.db.prepare("SELECT id, body, media_id AS \"mediaId\", status FROM messages WHERE workspace_id = ? AND phone = ?").all(ws.id, phone) as {
    id: string;
    body: string;
    mediaId: string | null;
    status: string;
  }[]);

test("a media file that cannot be written: the message is stored without media, message_received once with mediaUrl null", async () => {
  const dataDir = t.deps.config.dataDir;
  // the media folder is a file: every write under it fails, as on a full or broken disk
  writeFileSync(join(dataDir, "media"), "not a folder");
  const events = recordEvents(t);
  const networkMessageId = t.sim.inbound(session.id, { from: "919833300001", type: "image", text: "a photo", media: { data: png(2, 2), mimeType: "image/png", filename: "p.png" } });
  await waitFor(() => received(events).length, "message_received");
  await Bun.sleep(20);
  const evs = received(events);
  expect(evs.length).toBe(1);
  expect(evs[0]!.data).toMatchObject({ from: "919833300001", type: "image", text: "a photo", mediaUrl: null, mediaId: null, mimeType: null, filename: null });
  const rows = await storedRows("919833300001");
  expect(rows).toEqual([{ id: evs[0]!.data.messageId as string, body: "a photo", mediaId: null, status: "received" }]);
  expect((await t.deps.db.prepare("SELECT network_message_id AS n FROM messages WHERE id = ?").get(rows[0]!.id) as { n: string }).n).toBe(networkMessageId);

  // delivered again by the network: still one message
  t.sim.inbound(session.id, { networkMessageId, from: "919833300001", type: "image", text: "a photo", media: { data: png(2, 2), mimeType: "image/png" } });
  await Bun.sleep(30);
  expect(received(events).length).toBe(1);
  expect((await storedRows("919833300001")).length).toBe(1);
});

test("a media row the database refuses: the message is stored without media and the written file is removed", async () => {
  const dataDir = t.deps.config.dataDir;
  await Bun.file(join(dataDir, "media")).delete(); // writable again
  await t.deps.db.exec(
    t.deps.db.engine === "postgres"
      ? `CREATE FUNCTION refuse_media() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'database or disk is full'; END $$ LANGUAGE plpgsql;
         CREATE TRIGGER refuse_media BEFORE INSERT ON media FOR EACH ROW EXECUTE FUNCTION refuse_media()`
      : "CREATE TRIGGER refuse_media BEFORE INSERT ON media BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
  );
  try {
    const events = recordEvents(t);
    t.sim.inbound(session.id, { from: "919833300002", type: "image", media: { data: png(2, 2), mimeType: "image/png" } });
    await waitFor(() => received(events).length, "message_received");
    expect(received(events)[0]!.data).toMatchObject({ from: "919833300002", type: "image", text: "", mediaUrl: null, mediaId: null });
    expect(await storedRows("919833300002")).toEqual([{ id: received(events)[0]!.data.messageId as string, body: null as never, mediaId: null, status: "received" }]);
    expect(readdirSync(join(dataDir, "media", ws.id))).toEqual([]);
  } finally {
    await t.deps.db.exec(t.deps.db.engine === "postgres" ? "DROP TRIGGER refuse_media ON media; DROP FUNCTION refuse_media()" : "DROP TRIGGER refuse_media");
  }
});
