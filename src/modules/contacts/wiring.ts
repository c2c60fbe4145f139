import type { AppDeps } from "../../deps.ts";
import { importJob } from "./import-job.ts";
import { keywordSubscriber } from "./keywords.ts";

/** The contacts module's background side: the import job and the opt-out keywords. */
export function contactsServices(deps: AppDeps): void {
  deps.jobs.register(importJob(deps));
  deps.bus.onPublish(keywordSubscriber(deps));
}
