import { z } from "zod";
import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { lazySchema } from "../../http/lazy-schema.ts";
import { docSchema } from "../../http/openapi.ts";
import type { GroupInfo } from "../../network/driver.ts";
import type { SimControl } from "../../network/sim/control.ts";
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
export async function createSimGroup(deps: AppDeps, sim: SimControl, workspaceId: string, sessionId: string, name: string, participants: string[]): Promise<GroupInfo> {
  await sessionOf(deps, workspaceId, sessionId);
  if ((await sim.stateOf(sessionId)) !== "connected") throw errors.conflict("The session is not connected on the sim network");
  return await sim.createGroup(sessionId, name, participants);
}

/** The group a sim inbound message is written in: one the session is in, else 404. */
export async function simGroupOf(sim: SimControl, sessionId: string, groupId: string): Promise<GroupInfo> {
  const group = await sim.groupOf(sessionId, groupId);
  if (!group) throw errors.notFound("Group");
  return group;
}
