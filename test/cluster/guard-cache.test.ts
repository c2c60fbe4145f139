import { expect, test } from "bun:test";
import { clusterNodes, ownerToken, prepareDataDir, serverData, until } from "../helpers/crash.ts";
import { testEngine } from "../helpers/postgres.ts";
import type { ChildServer } from "../helpers/process.ts";

// The request guard keeps credential rows in memory on PostgreSQL (src/db/read-cache.ts). A change
// must reach the node that made it at once and the other nodes (and changes made by another
// process, like an operator command) within the notification's latency. Real server processes.

const { node } = clusterNodes();

const get = (s: ChildServer, path: string, headers: Record<string, string>) => fetch(s.url + path, { headers }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Several GETs in a row: the row is read once, then answered from memory. */
async function warm(s: ChildServer, path: string, headers: Record<string, string>): Promise<void> {
  for (let i = 0; i < 5; i++) expect((await get(s, path, headers)).status).toBe(200);
}

test.skipIf(testEngine !== "postgres")(
  "PostgreSQL only (nodes share a database there): a revoked API key and a removed member stop working at once on the node that changed them, within the notification's latency on the other node, and a change written by another process reaches both",
  async () => {
    const data = await serverData("parley-guard-cache-");
    let agentId = "";
    let workspaceId = "";
    const ownerTok = await prepareDataDir(data, async (db, ws) => {
      workspaceId = ws;
      agentId = Bun.randomUUIDv7();
      const now = Date.now();
      await db
        .prepare(
          `INSERT INTO users (id, workspace_id, email, name, password_hash, mobile, role, mobile_verified_at, email_verified_at, created_at, updated_at)
           VALUES (?, ?, ?, 'Agent', 'x', '919800000001', 'agent', ?, ?, ?, ?)`,
        )
        .run(agentId, ws, `agent-${agentId.slice(-8)}@crash.test`, now, now, now, now);
    });
    const agentTok = await ownerToken(await data.jwtSecret(), workspaceId, agentId);
    const owner = bearer(ownerTok);
    try {
      const a = await node(data, "node-a");
      const b = await node(data, "node-b");
      const mkKey = async () => {
        const res = await fetch(a.url + "/api/api-keys", { method: "POST", headers: { ...owner, "content-type": "application/json" }, body: JSON.stringify({ name: "k" }) });
        expect(res.status).toBe(201);
        return ((await res.json()) as any).data as { id: string; key: string };
      };

      // revoked on node A: A refuses it in the next request, B as soon as it hears
      const k1 = await mkKey();
      await warm(a, "/api/external/sessions", { "x-api-key": k1.key });
      await warm(a, "/api/auth/profile", owner);
      await warm(b, "/api/auth/profile", owner);
      await warm(b, "/api/external/sessions", { "x-api-key": k1.key });
      expect((await fetch(a.url + `/api/api-keys/${k1.id}`, { method: "DELETE", headers: owner })).status).toBe(200);
      expect((await get(a, "/api/external/sessions", { "x-api-key": k1.key })).status).toBe(401);
      await until("node B refuses the revoked key", async () => (await get(b, "/api/external/sessions", { "x-api-key": k1.key })).status === 401, 2_000);

      // a member removed on node A
      await warm(a, "/api/auth/profile", bearer(agentTok));
      await warm(b, "/api/auth/profile", bearer(agentTok));
      expect((await fetch(a.url + `/api/team/members/${agentId}`, { method: "DELETE", headers: owner })).status).toBe(200);
      expect((await get(a, "/api/auth/profile", bearer(agentTok))).status).toBe(401);
      await until("node B refuses the removed member", async () => (await get(b, "/api/auth/profile", bearer(agentTok))).status === 401, 2_000);

      // revoked by another process (this test's own store, as an operator command would)
      const k2 = await mkKey();
      await warm(a, "/api/external/sessions", { "x-api-key": k2.key });
      await warm(b, "/api/external/sessions", { "x-api-key": k2.key });
      await data.store().prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").run(Date.now(), k2.id);
      for (const s of [a, b]) await until(`${s.url} refuses the key revoked elsewhere`, async () => (await get(s, "/api/external/sessions", { "x-api-key": k2.key })).status === 401, 2_000);

      // the owner's own profile change shows at once on the node that made it
      const patched = await fetch(a.url + "/api/auth/profile", { method: "PUT", headers: { ...owner, "content-type": "application/json" }, body: JSON.stringify({ name: "Renamed" }) });
      expect(patched.status).toBe(200);
      expect((await get(a, "/api/auth/profile", owner)).body.data.name).toBe("Renamed");
      await until("node B shows the new name", async () => (await get(b, "/api/auth/profile", owner)).body.data.name === "Renamed", 2_000);
    } finally {
      await data.close();
    }
  },
  60_000,
);
