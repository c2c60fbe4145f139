import { useQuery } from "@tanstack/react-query";
import { get } from "./client.ts";

/** What the screens must know about the server before and after sign-in (GET /api/setup). */
export interface ServerFacts {
  needsSetup: boolean;
  tokenValid: boolean;
  simNetwork: boolean;
  captcha: boolean;
  codes: { email: "mail" | "outbox"; mobile: "sms" | "outbox" };
}

/** The server's facts; `token` checks a setup link's token too. */
export function useServerFacts(token?: string) {
  return useQuery({
    queryKey: ["server-facts", token ?? ""],
    queryFn: () => get<ServerFacts>(`/api/setup${token ? `?token=${encodeURIComponent(token)}` : ""}`),
    staleTime: 60_000,
  });
}

/** Where a code (or link) of this kind went, said for the person waiting for it; null when it went by mail or SMS. */
export function outboxNote(facts: ServerFacts | undefined, kind: "email" | "mobile", what: "code" | "link" = "code"): string | null {
  if (!facts || facts.codes[kind] !== "outbox") return null;
  const channel = kind === "email" ? "email" : "SMS";
  return `This server has no ${channel} set up, so the ${what} was not sent to you: it is in the server's local outbox. Whoever runs the server reads it with \`parley outbox\` on the server.`;
}
