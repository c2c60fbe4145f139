import { z } from "zod";
import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { lazySchema } from "../../http/lazy-schema.ts";
import { docSchema } from "../../http/openapi.ts";
import type { GroupInfo } from "../../network/driver.ts";
import type { SimDriver } from "../../network/sim/driver.ts";
import { phoneNumber } from "../sessions/model.ts";
import { sessionOf } from "../sessions/service.ts";

// The sim network's group chats (docs/groups.md): creating a group the session is in.

export const createGroupBody = lazySchema(() =>
  z.object({
    name: z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters"),
    participants: z
      .array(phoneNumber, { error: "must be a list of phone numbers" })
      .min(1, "must name at least one member")
      .max(1024, "must name at most 1024 members"),
  }),
);

export const groupDoc = docSchema(() => z.object({ id: z.string().describe("the group's id (…@g.us)"), name: z.string(), participants: z.array(z.string()) }));

/** Creates a group on the sim network that the session (connected) is in. */
export async function createSimGroup(deps: AppDeps, sim: SimDriver, workspaceId: string, sessionId: string, name: string, participants: string[]): Promise<GroupInfo> {
  await sessionOf(deps, workspaceId, sessionId);
  if (sim.stateOf(sessionId) !== "connected") throw errors.conflict("The session is not connected on the sim network");
  return sim.groups.create(sessionId, name, participants);
}

/** The group a sim inbound message is written in: one the session is in, else 404. */
export function simGroupOf(sim: SimDriver, sessionId: string, groupId: string): GroupInfo {
  const group = sim.groups.get(sessionId, groupId);
  if (!group) throw errors.notFound("Group");
  return group;
}
