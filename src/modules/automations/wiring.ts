import type { AppDeps } from "../../deps.ts";
import { automationSubscriber } from "./decide.ts";
import { replyJobHandler } from "./job.ts";

/** The automations module's background side: the decision on each inbound message and the job that sends the answer. */
export function automationServices(deps: AppDeps): void {
  deps.jobs.register(replyJobHandler(deps));
  deps.bus.onPublish(automationSubscriber(deps));
}
