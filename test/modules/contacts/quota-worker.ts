// A second connection to the same database file, in a worker: proves the contacts quota
// holds across connections (the count and the insert share an IMMEDIATE transaction).
import { ManualClock } from "../../../src/clock.ts";
import { openDb } from "../../../src/db/open.ts";
import { silentLogger } from "../../../src/log.ts";
import { createContact } from "../../../src/modules/contacts/service.ts";

declare const self: Worker;

self.onmessage = (e: MessageEvent) => {
  const { dbPath, workspaceId, now, phones } = e.data as { dbPath: string; workspaceId: string; now: number; phones: string[] };
  const opened = openDb(dbPath);
  const deps = { db: opened.db, sqlite: opened.sqlite, clock: new ManualClock(now), log: silentLogger };
  const results = phones.map((phone) => {
    try {
      createContact(deps, workspaceId, { phone });
      return "ok";
    } catch (err) {
      return (err as { code?: string }).code ?? String(err);
    }
  });
  opened.close();
  self.postMessage(results);
};
