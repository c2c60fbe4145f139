import type { AppDeps } from "../../deps.ts";
import { sentOnDay } from "./dispatch.ts";
import { sessionsOf } from "./engine.ts";
import { dailyCap, quietUntil, utcDay, type Pacing } from "./pacing.ts";
import type { CampaignRow } from "./repo.ts";
import { campaignView, type WaitingReason } from "./view.ts";

/** Why a running campaign sends nothing now, in words and in a code a client can act on. */

const DAY = 86_400_000;

/**
 * Why a running campaign waits (the engine records only until when): quiet hours, every number
 * at its warm-up allowance or its daily cap, or its sessions reconnecting. Null while it sends
 * (or is not running). Reads only for a campaign that waits.
 */
export async function waitingReasonOf(deps: Pick<AppDeps, "db" | "clock">, c: CampaignRow): Promise<WaitingReason | null> {
  if (c.status !== "running") return null;
  const now = deps.clock.now().getTime();
  const pacing = c.pacing as unknown as Pacing;
  if (c.waitingUntil !== null && pacing.quietHours && quietUntil(pacing.quietHours, now) !== null) {
    const q = pacing.quietHours;
    return { code: "quiet_hours", message: `Quiet hours (${q.start} to ${q.end}, ${q.timezone}): no campaign messages are sent until ${q.end}`, allowance: null };
  }
  const sessions = await sessionsOf(deps, c);
  const live = sessions.filter((s) => s.status === "connected");
  if (!live.length) {
    return sessions.some((s) => s.reconnecting) ? { code: "reconnecting", message: "Waiting for the campaign's number to reconnect", allowance: null } : null;
  }
  if (c.waitingUntil === null) return null;
  const day = utcDay(now);
  const capped: { cap: number; sent: number; first: number }[] = [];
  for (const s of live) capped.push({ cap: dailyCap(pacing, s.firstConnectedAt, now), sent: await sentOnDay(deps, s.id, day), first: s.firstConnectedAt });
  if (!capped.every((s) => s.sent >= s.cap)) return null;
  const warming = capped.filter((s) => pacing.warmup && s.cap < pacing.dailyCapPerSession);
  if (warming.length) {
    const allowance = Math.max(...warming.map((s) => s.cap));
    const dayOf = Math.floor((now - Math.min(...warming.map((s) => s.first))) / DAY) + 1;
    return {
      code: "warmup",
      message: `Warm-up: a new number sends at most ${allowance} campaign messages a day now (day ${dayOf} since it was first connected: 50 a day on days 1-2, 200 on days 3-5, 500 on days 6-10, then the campaign's daily cap), to keep it from being banned. Today's are sent; sending goes on after midnight UTC`,
      allowance,
    };
  }
  return {
    code: "daily_cap",
    message: `Daily cap: each number sends at most ${pacing.dailyCapPerSession} campaign messages a day (pacing.dailyCapPerSession). Today's are sent; sending goes on after midnight UTC`,
    allowance: pacing.dailyCapPerSession,
  };
}

/** The API shape of a campaign, with why it waits. */
export async function campaignOut(deps: Pick<AppDeps, "db" | "clock">, c: CampaignRow) {
  return campaignView(c, await waitingReasonOf(deps, c));
}
