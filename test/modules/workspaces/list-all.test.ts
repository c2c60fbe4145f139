// `parley workspaces list` reads every workspace with one statement of plain SQL
// (listAllWorkspaces): the same rows on both engines (counts as numbers, NULL owners, oldest first).
import { expect, test } from "bun:test";
import { listAllWorkspaces } from "../../../src/modules/workspaces/repo.ts";
import { createTestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";

test("listAllWorkspaces: every workspace, oldest first, with its member count and an owner's email", async () => {
  const t = await createTestApp();
  try {
    const a = await createWorkspace(t, { name: "Alpha" });
    await a.member("agent");
    t.clock.advance(1000);
    const b = await createWorkspace(t, { name: "Beta", status: "active" });
    // a workspace whose owner is gone: no owner, no members
    await t.deps.db.prepare("DELETE FROM users WHERE workspace_id = ?").run(b.id);
    const rows = await listAllWorkspaces(t.deps.db);
    expect(rows.map((r) => r.id)).toEqual([a.id, b.id]);
    expect(rows[0]).toMatchObject({ id: a.id, name: "Alpha", status: "trialing", members: 2, owner: a.owner.email, currentPeriodEnd: null });
    expect(rows[1]).toMatchObject({ id: b.id, name: "Beta", status: "active", members: 0, owner: null });
    expect(typeof rows[0]!.members).toBe("number");
    expect(typeof rows[0]!.createdAt).toBe("number");
    expect(rows[0]!.createdAt).toBeLessThan(rows[1]!.createdAt);
  } finally {
    await t.close();
  }
});
