import { embeddedWeb } from "./embedded.macro.ts" with { type: "macro" };
import type { WebAssets } from "../../../web/build.ts";

// null when running from source: the dashboard is then built on its first request. This module
// holds the whole dashboard as string literals (≈650 KB of JavaScript strings); the dashboard's
// routes import it on their first request, so a start of the binary does not load it
export function embedded(): WebAssets | null {
  return embeddedWeb();
}
