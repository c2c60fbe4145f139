import type { AppDeps } from "../../deps.ts";
import { onGroupWarm } from "../../db/group-memo.ts";
import { automationSubscriber } from "./decide.ts";
import { activeAutomations } from "./repo.ts";
import { replyJobHandler } from "./job.ts";

/** The automations module's background side: the decision on each inbound message and the job that sends the answer. */
export function automationServices(deps: AppDeps): void {
  deps.jobs.register(replyJobHandler(deps));
  deps.bus.onPublish(automationSubscriber(deps));
  // an inbound group reads them at its start, with its other reads (PostgreSQL)
  onGroupWarm(deps.db, (workspaceId) => activeAutomations(deps.db, workspaceId));
}
