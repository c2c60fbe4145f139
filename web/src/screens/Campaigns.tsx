import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { get } from "../api/client.ts";
import { can } from "../api/roles.ts";
import type { Campaign } from "../api/types.ts";
import { ErrorNote } from "../ui/errors.tsx";
import { Progress } from "../ui/Field.tsx";
import { fmtDate, useAuth } from "../ui/hooks.ts";

export const done = (c: Campaign) => c.stats.total - c.stats.pending;

const WAITING: Record<string, string> = { quiet_hours: "quiet hours", warmup: "warm-up limit for today", daily_cap: "daily cap reached", reconnecting: "number reconnecting" };

/** Campaigns (docs/contacts-and-campaigns.md): the list with live progress (campaign_progress refreshes it). */
export function Campaigns() {
  const { claims } = useAuth();
  const list = useQuery({ queryKey: ["campaigns"], queryFn: () => get<Campaign[]>("/api/v1/campaigns?limit=100") });
  return (
    <section>
      <h1>Campaigns</h1>
      {can(claims?.role, "manage") && (
        <Link href="/campaigns/new" className="button">
          New campaign
        </Link>
      )}
      <ErrorNote error={list.error} />
      {list.data?.length === 0 && <p className="empty">No campaigns yet.</p>}
      <ul className="cards">
        {list.data?.map((c) => (
          <li key={c.id} className="card">
            <h2>
              <Link href={`/campaigns/${c.id}`}>{c.name}</Link>
            </h2>
            <p>
              <span className={`badge status-${c.status}`}>{c.status}</span> {c.pausedReason && <span className="muted">({c.pausedReason.replace(/_/g, " ")})</span>}
              {c.waitingReason && <span className="muted"> · waiting: {WAITING[c.waitingReason.code]}</span>}
            </p>
            <Progress label={`Progress of ${c.name}`} value={done(c)} max={c.stats.total} />
            <p className="muted">Created {fmtDate(c.createdAt)}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Fills {{name}}, {{phone}}, {{attributes.KEY}} (each with an optional |default) like the server. */
export function renderTemplate(body: string, c: { name: string | null; pushName: string | null; phone: string; attributes?: Record<string, string> } | null): string {
  return body.replace(/\{\{\s*([a-zA-Z0-9_.]+)\s*(?:\|([^}]*))?\}\}/g, (_, key: string, def: string | undefined) => {
    let v: string | null | undefined;
    if (!c) v = undefined;
    else if (key === "name") v = c.name || c.pushName;
    else if (key === "phone") v = c.phone;
    else if (key.startsWith("attributes.")) v = attributeOf(c.attributes, key.slice(11));
    return v || (def ?? "").trim();
  });
}

/** An attribute by key, in any case ({{attributes.city}} reads a City column), as the server does; the exact key wins. */
export function attributeOf(attributes: Record<string, string> | undefined, key: string): string | undefined {
  if (!attributes) return undefined;
  if (Object.hasOwn(attributes, key)) return attributes[key];
  const k = Object.keys(attributes).find((x) => x.toLowerCase() === key.toLowerCase());
  return k === undefined ? undefined : attributes[k];
}

/** The attribute keys a message body reads ({{attributes.KEY}}). */
export function attributeKeysOf(body: string): string[] {
  return [...new Set([...body.matchAll(/\{\{\s*attributes\.([a-zA-Z0-9_]+)\s*(?:\|[^}]*)?\}\}/g)].map((m) => m[1]!))];
}
