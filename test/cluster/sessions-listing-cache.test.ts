import { expect, test } from "bun:test";
import { clusterNodes, prepareDataDir, serverData, until } from "../helpers/crash.ts";
import { testEngine } from "../helpers/postgres.ts";
import type { ChildServer } from "../helpers/process.ts";

// On PostgreSQL the API-key listing of sessions (GET /api/external/sessions) is kept in the read
// cache (src/db/read-cache.ts) until the sessions table changes. A change must show at once on
// the node that made it, and on the other node within the notification's latency: every check
// on node B waits at most 2 seconds, well inside the cache's 5-second bound, so the notification
// is what does it. Real server processes on one database.

const { node } = clusterNodes();

type Listed = { id: string; name: string; status: string; phoneNumber: string | null };

test.skipIf(testEngine !== "postgres")(
  "PostgreSQL only (nodes share a database there): the API-key session listing shows a session created, linked, unlinked by the network, disconnected, renamed by another process and deleted: at once on the node that changed it, within 2 s on the other",
  async () => {
    const data = await serverData("parley-sessions-cache-");
    const owner = { authorization: `Bearer ${await prepareDataDir(data)}` };
    try {
      const a = await node(data, "node-a");
      const b = await node(data, "node-b");
      const call = async (s: ChildServer, method: string, path: string, body?: unknown) => {
        const res = await fetch(s.url + path, {
          method,
          headers: { ...owner, ...(body === undefined ? {} : { "content-type": "application/json" }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as any };
      };
      const made = await call(a, "POST", "/api/api-keys", { name: "k" });
      expect(made.status).toBe(201);
      const key = { "x-api-key": made.body.data.key as string };
      const list = async (s: ChildServer): Promise<Listed[]> => {
        const res = await fetch(s.url + "/api/external/sessions", { headers: key });
        expect(res.status).toBe(200);
        return ((await res.json()) as { data: Listed[] }).data;
      };
      /** Several listings in a row on both nodes: read once, then answered from memory. */
      const warm = async () => {
        for (const s of [a, b]) for (let i = 0; i < 5; i++) await list(s);
      };
      const onB = (what: string, check: (rows: Listed[]) => boolean) => until(`node B: ${what}`, async () => check(await list(b)), 2_000);
      const statusOf = (rows: Listed[], id: string) => rows.find((r) => r.id === id)?.status;

      await warm();
      expect(await list(a)).toEqual([]);

      // created on A
      const created = await call(a, "POST", "/api/v1/chatapp", { name: "first" });
      expect(created.status).toBe(201);
      const sid = created.body.data.id as string;
      expect((await list(a)).map((r) => [r.id, r.name, r.status])).toEqual([[sid, "first", "disconnected"]]);
      await onB("lists the new session", (rows) => rows.length === 1 && rows[0]!.id === sid);

      // linked on A (QR scanned): the status the holder writes
      await warm();
      expect((await call(a, "POST", `/api/v1/chatapp/${sid}/connect`)).status).toBe(200);
      expect((await call(a, "POST", `/api/sim/sessions/${sid}/scan`, { phoneNumber: "919811100021" })).status).toBe(200);
      await until("node A lists it connected", async () => statusOf(await list(a), sid) === "connected");
      expect(statusOf(await list(a), sid)).toBe("connected");
      await onB("lists it connected", (rows) => statusOf(rows, sid) === "connected" && rows[0]!.phoneNumber === "919811100021");

      // unlinked by the network (the phone logged out): written by the holding node on its own
      await warm();
      const holder = (await call(a, "GET", `/api/v1/chatapp/${sid}`)).body.data;
      expect(holder.status).toBe("connected");
      expect((await call(a, "POST", `/api/sim/sessions/${sid}/logout`)).status).toBe(200);
      await until("node A lists it unlinked", async () => statusOf(await list(a), sid) !== "connected");
      const unlinked = statusOf(await list(a), sid);
      await onB("lists it unlinked", (rows) => statusOf(rows, sid) === unlinked);

      // linked again, then disconnected through the route on A: A's very next listing shows it
      expect((await call(a, "POST", `/api/v1/chatapp/${sid}/connect`)).status).toBe(200);
      expect((await call(a, "POST", `/api/sim/sessions/${sid}/scan`, { phoneNumber: "919811100021" })).status).toBe(200);
      await until("node A lists it connected again", async () => statusOf(await list(a), sid) === "connected");
      await onB("lists it connected again", (rows) => statusOf(rows, sid) === "connected");
      await warm();
      const disconnected = await call(a, "POST", `/api/v1/chatapp/${sid}/disconnect`);
      expect(disconnected.status).toBe(200);
      expect(statusOf(await list(a), sid)).toBe(disconnected.body.data.status);
      expect(disconnected.body.data.status).not.toBe("connected");
      await onB("lists it disconnected", (rows) => statusOf(rows, sid) === disconnected.body.data.status);

      // renamed by another process writing the database (as an operator command would)
      await warm();
      await data.store().prepare("UPDATE chat_sessions SET name = ? WHERE id = ?").run("renamed", sid);
      for (const [s, n] of [[a, "A"], [b, "B"]] as const) {
        await until(`node ${n} shows the new name`, async () => (await list(s))[0]?.name === "renamed", 2_000);
      }

      // deleted on A
      await warm();
      expect((await call(a, "DELETE", `/api/v1/chatapp/${sid}`)).status).toBe(200);
      expect(await list(a)).toEqual([]);
      await onB("no longer lists the deleted session", (rows) => rows.length === 0);
    } finally {
      await data.close();
    }
  },
  90_000,
);
