import type { AppDeps } from "./deps.ts";
import type { PeriodicJob } from "./jobs/periodic.ts";
import { messagingServices } from "./modules/messages/wiring.ts";

/** Long-lived services built once over the deps: the modules' background side. */
export interface Services {
  periodic: PeriodicJob[];
  /** Starts background work that needs the server to be up (restoring sessions, ...). */
  start(): Promise<void>;
  /** Stops background work before the database closes. */
  stop(): Promise<void>;
}

const DAY = 86_400_000;

/** Wires every module's services, job handlers and periodic jobs. */
export function createServices(deps: AppDeps): Services {
  const periodic: PeriodicJob[] = [
    {
      name: "jobs.prune",
      schedule: "17 3 * * *",
      run: () => {
        const cutoff = deps.clock.now().getTime() - 7 * DAY;
        deps.sqlite.query("DELETE FROM jobs WHERE status = 'done' AND updated_at < ?").run(cutoff);
      },
    },
  ];
  const messaging = messagingServices(deps);
  periodic.push(...messaging.periodic);
  return {
    periodic,
    async start() {
      await messaging.start();
    },
    async stop() {
      await messaging.stop();
    },
  };
}
