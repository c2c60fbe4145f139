import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { get } from "../api/client.ts";
import { can } from "../api/roles.ts";
import type { Campaign } from "../api/types.ts";
import { ErrorNote } from "../ui/errors.tsx";
import { Progress } from "../ui/Field.tsx";
import { fmtDate, useAuth } from "../ui/hooks.ts";

export const done = (c: Campaign) => c.stats.total - c.stats.pending;

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
    else if (key.startsWith("attributes.")) v = c.attributes?.[key.slice(11)];
    return v || (def ?? "").trim();
  });
}
