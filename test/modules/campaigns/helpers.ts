import type { AppEvent } from "../../../src/events/bus.ts";
import type { TestApp } from "../../helpers/app.ts";
import { accessToken, type TestWorkspace } from "../../helpers/fixtures.ts";
import { readSimSent } from "../../helpers/sim-sent.ts";

let seq = 0;

export interface ContactSeed {
  name?: string | null;
  optedOut?: boolean;
  phone?: string;
}

/** Inserts contacts straight into the table (one transaction); returns their ids and phones in order. */
export async function seedContacts(t: TestApp, ws: TestWorkspace, n: number, each: (i: number) => ContactSeed = () => ({})): Promise<{ id: string; phone: string }[]> {
  const insert = t.deps.db.prepare("INSERT INTO contacts (id, workspace_id, phone, name, opted_out, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)");
  const now = t.clock.now().getTime();
  const out: { id: string; phone: string }[] = [];
  await t.deps.db.tx(async () => {
    for (let i = 0; i < n; i++) {
      const s = each(i);
      const id = Bun.randomUUIDv7();
      const phone = s.phone ?? `9177${String(++seq).padStart(8, "0")}`;
      await insert.run(id, ws.id, phone, s.name === undefined ? `Person ${i}` : s.name, s.optedOut ? 1 : 0, now, now);
      out.push({ id, phone });
    }
  });
  return out;
}

/** A campaign body with fast pacing and no warm-up, for the given sessions and contacts. */
export function campaignBody(sessionIds: string[], contactIds: string[], over: Record<string, unknown> = {}) {
  return {
    name: `campaign ${++seq}`,
    sessionIds,
    message: { type: "text", body: "Hello {{name|friend}}, your number is {{phone}}" },
    audience: { contactIds },
    pacing: { perMinute: 600, jitterPercent: 0, warmup: false },
    ...over,
  };
}

/** Mints the owner a new token at the manual clock's time (tests move the clock past 15 minutes). */
export async function freshOwner(t: TestApp, ws: TestWorkspace): Promise<string> {
  ws.owner.token = await accessToken(t, ws.owner.userId, ws.id, "owner");
  return ws.owner.token;
}

/** Creates (and optionally starts) a campaign over HTTP as the owner; returns its id. */
export async function newCampaign(t: TestApp, ws: TestWorkspace, body: unknown, start = true): Promise<string> {
  await freshOwner(t, ws);
  const created = await t.request("POST", "/api/v1/campaigns", { token: ws.owner.token, body });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.data.id as string;
  if (start) {
    const started = await t.request("POST", `/api/v1/campaigns/${id}/start`, { token: ws.owner.token });
    if (started.status !== 200) throw new Error(`start: ${started.status} ${JSON.stringify(started.body)}`);
  }
  return id;
}

/** The campaign as the API shows it. */
export async function campaign(t: TestApp, ws: TestWorkspace, id: string): Promise<any> {
  return (await t.request("GET", `/api/v1/campaigns/${id}`, { token: await freshOwner(t, ws) })).body.data;
}

/** Runs due jobs until none is left (jobs reschedule themselves; timers re-check on the next macrotask). */
export async function settle(t: TestApp): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const n = await t.deps.jobs.runDue();
    await Bun.sleep(1);
    if (n === 0 && (await t.deps.jobs.runDue()) === 0) return;
  }
}

/** Moves the manual clock in steps, running due jobs after each, until `done` or the step budget ends. */
export async function advanceUntil(t: TestApp, stepMs: number, done: () => boolean | Promise<boolean>, maxSteps = 5000): Promise<number> {
  for (let i = 0; i < maxSteps; i++) {
    await settle(t);
    if (await done()) return i;
    t.clock.advance(stepMs);
  }
  throw new Error(`not done after ${maxSteps} steps of ${stepMs} ms`);
}

/** campaign_progress events of one campaign, as committed. */
export function progressEvents(t: TestApp, campaignId?: string): AppEvent[] {
  const events: AppEvent[] = [];
  t.deps.bus.subscribe((e) => {
    if (e.event === "campaign_progress" && (!campaignId || e.data.campaignId === campaignId)) events.push(e);
  });
  return events;
}

/** What the sim network accepted, from its log in the data dir (complete lines). */
export const simSent = readSimSent;

const COUNTS = ["pending", "sent", "delivered", "read", "failed", "skipped"] as const;

/** Checks a sequence of progress data: each adds up to total and no "at least this far" figure goes down. */
export function checkProgress(list: Record<string, any>[]): string[] {
  const problems: string[] = [];
  let prev: Record<string, number> | null = null;
  for (const d of list) {
    const sum = COUNTS.reduce((a, k) => a + d[k], 0);
    if (sum !== d.total) problems.push(`sum ${sum} != total ${d.total}`);
    const reached = {
      total: d.total,
      done: d.total - d.pending,
      sent: d.sent + d.delivered + d.read,
      delivered: d.delivered + d.read,
      read: d.read,
      failed: d.failed,
      skipped: d.skipped,
    };
    if (prev) for (const [k, v] of Object.entries(reached)) if (v < prev[k]!) problems.push(`${k} went back from ${prev[k]} to ${v}`);
    prev = reached;
  }
  return problems;
}
