import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { findMedia } from "../media/repo.ts";
import { getSession } from "../sessions/repo.ts";
import { storedReply, storedTrigger, type AutomationView, type CreateAutomationInput, type UpdateAutomationInput } from "./model.ts";
import * as repo from "./repo.ts";
import type { Reply } from "./table.ts";

const iso = (ms: number) => new Date(ms).toISOString();

/** The API shape of an automation. */
export function toAutomationView(a: repo.AutomationRow): AutomationView {
  return {
    id: a.id,
    name: a.name,
    trigger: a.trigger,
    reply: a.reply,
    sessionIds: a.sessionIds ?? null,
    cooldownMinutes: a.cooldownMinutes,
    isActive: a.isActive,
    createdAt: iso(a.createdAt),
    updatedAt: iso(a.updatedAt),
  };
}

async function mustGet(deps: AppDeps, workspaceId: string, id: string): Promise<repo.AutomationRow> {
  const a = await repo.getAutomation(deps.db, workspaceId, id);
  if (!a) throw errors.notFound("Automation");
  return a;
}

/** Sessions and media named in the body must be the workspace's: 400 naming the field otherwise. */
async function checkReferences(deps: AppDeps, workspaceId: string, input: { sessionIds?: string[] | null; reply?: Reply }): Promise<void> {
  for (const [i, id] of (input.sessionIds ?? []).entries()) {
    if (!(await getSession(deps.db, workspaceId, id))) throw errors.validation({ [`sessionIds.${i}`]: `no session ${id} in this workspace` });
  }
  const r = input.reply;
  if (r && r.type !== "text" && !(await findMedia(deps.db, workspaceId, r.mediaId))) {
    throw errors.validation({ "reply.mediaId": `no media ${r.mediaId} in this workspace (upload it with POST /api/v1/media)` });
  }
}

export async function listAutomations(deps: AppDeps, workspaceId: string): Promise<AutomationView[]> {
  return (await repo.listAutomations(deps.db, workspaceId)).map(toAutomationView);
}

export async function getAutomation(deps: AppDeps, workspaceId: string, id: string): Promise<AutomationView> {
  return toAutomationView(await mustGet(deps, workspaceId, id));
}

export async function createAutomation(deps: AppDeps, workspaceId: string, userId: string | null, input: CreateAutomationInput): Promise<AutomationView> {
  const trigger = storedTrigger(input.trigger);
  const reply = storedReply(input.reply);
  const sessionIds = input.sessionIds ? [...new Set(input.sessionIds)] : null;
  await checkReferences(deps, workspaceId, { sessionIds, reply });
  const now = deps.clock.now().getTime();
  const id = Bun.randomUUIDv7();
  await repo.insertAutomation(deps.db, workspaceId, {
    id,
    name: input.name,
    triggerType: trigger.type,
    trigger,
    reply,
    sessionIds,
    cooldownMinutes: input.cooldownMinutes,
    isActive: input.isActive,
    createdBy: userId,
    createdAt: now,
    updatedAt: now,
  });
  return getAutomation(deps, workspaceId, id);
}

export async function updateAutomation(deps: AppDeps, workspaceId: string, id: string, input: UpdateAutomationInput): Promise<AutomationView> {
  await mustGet(deps, workspaceId, id);
  const trigger = input.trigger ? storedTrigger(input.trigger) : undefined;
  const reply = input.reply ? storedReply(input.reply) : undefined;
  const sessionIds = input.sessionIds === undefined ? undefined : input.sessionIds && [...new Set(input.sessionIds)];
  await checkReferences(deps, workspaceId, { sessionIds, reply });
  const change = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(trigger ? { trigger, triggerType: trigger.type } : {}),
    ...(reply ? { reply } : {}),
    ...(sessionIds !== undefined ? { sessionIds } : {}),
    ...(input.cooldownMinutes !== undefined ? { cooldownMinutes: input.cooldownMinutes } : {}),
    ...(input.isActive !== undefined ? { isActive: input.isActive } : {}),
    updatedAt: deps.clock.now().getTime(),
  };
  if (!(await repo.updateAutomation(deps.db, workspaceId, id, change))) throw errors.notFound("Automation");
  return getAutomation(deps, workspaceId, id);
}

/** Deletes an automation; answers already decided are still sent (their messages keep its id). */
export async function deleteAutomation(deps: AppDeps, workspaceId: string, id: string): Promise<void> {
  if (!(await repo.deleteAutomation(deps.db, workspaceId, id))) throw errors.notFound("Automation");
}
