// A second connection to the same database file, in a worker: proves the contacts quota
// holds across connections (the count and the insert share one write transaction), and, with
// the worker's creates in flight together, within one connection too.
import { ManualClock } from "../../../src/clock.ts";
import { openSqliteStore } from "../../../src/db/sqlite.ts";
import { silentLogger } from "../../../src/log.ts";
import { createContact } from "../../../src/modules/contacts/service.ts";

declare const self: Worker;

self.onmessage = async (e: MessageEvent) => {
  const { dbPath, workspaceId, now, phones } = e.data as { dbPath: string; workspaceId: string; now: number; phones: string[] };
  const { db } = openSqliteStore(dbPath);
  const deps = { db, clock: new ManualClock(now), log: silentLogger };
  const results = await Promise.all(
    phones.map(async (phone) => {
      try {
        await createContact(deps, workspaceId, { phone });
        return "ok";
      } catch (err) {
        return (err as { code?: string }).code ?? String(err);
      }
    }),
  );
  await db.close();
  self.postMessage(results);
};
