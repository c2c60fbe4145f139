import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useParams } from "wouter";
import { api, del, get, post, qs } from "../api/client.ts";
import { can } from "../api/roles.ts";
import type { Campaign } from "../api/types.ts";
import { ConfirmButton } from "../ui/ConfirmButton.tsx";
import { ErrorNote } from "../ui/errors.tsx";
import { Progress, Select } from "../ui/Field.tsx";
import { fmtDate, fmtPhone, useAction, useAuth } from "../ui/hooks.ts";
import { done } from "./Campaigns.tsx";

interface Recipient {
  id: string;
  phone: string;
  status: string;
  skippedReason: string | null;
  error: string | { message?: string } | null;
  sentAt: string | null;
}

/** One campaign: live progress (campaign_progress patches the cache), its transitions, recipients. */
export function CampaignDetail() {
  const { id } = useParams<{ id: string }>();
  const { claims } = useAuth();
  const manage = can(claims?.role, "manage");
  const q = useQuery({ queryKey: ["campaign", id], queryFn: () => get<Campaign>(`/api/v1/campaigns/${id}`) });
  const [status, setStatus] = useState("");
  const [page, setPage] = useState(1);
  const recipients = useQuery({
    queryKey: ["campaign", id, "recipients", status, page],
    queryFn: () => api<Recipient[]>("GET", `/api/v1/campaigns/${id}/recipients${qs({ status, page, limit: 20 })}`),
    refetchInterval: q.data?.status === "running" ? 5000 : false,
  });
  const act = useAction((what: string) => post<Campaign>(`/api/v1/campaigns/${id}/${what}`), [["campaign", id], ["campaigns"]]);
  const remove = useAction(() => del(`/api/v1/campaigns/${id}`), [["campaigns"]], () => history.back());
  const c = q.data;
  if (!c) return <section>{q.isLoading ? <p>Loading…</p> : <ErrorNote error={q.error} />}</section>;
  const s = c.stats;

  return (
    <section>
      <p>
        <Link href="/campaigns">← Campaigns</Link>
      </p>
      <h1>{c.name}</h1>
      <p>
        <span className={`badge status-${c.status}`} data-testid="campaign-status">
          {c.status}
        </span>{" "}
        {c.pausedReason && <span>paused: {c.pausedReason.replace(/_/g, " ")}</span>}
        {c.waitingUntil && <span className="muted"> · waiting until {fmtDate(c.waitingUntil)}</span>}
        {c.status === "running" && !c.waitingUntil && c.waitingReason && <span className="muted"> · waiting</span>}
        {c.schedule && <span className="muted"> · scheduled for {fmtDate(c.schedule.at)}</span>}
      </p>
      {c.waitingReason && (
        <p className="note" data-testid="campaign-waiting">
          <strong>Why it waits:</strong> {c.waitingReason.message}.
        </p>
      )}
      <div role="status" aria-live="polite" data-testid="campaign-progress">
        <Progress label="Campaign progress" value={done(c)} max={s.total} />
        <dl className="stats">
          {(["total", "pending", "sent", "delivered", "read", "failed", "skipped"] as const).map((k) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{s[k]}</dd>
            </div>
          ))}
        </dl>
      </div>
      <p className="bubble">{c.message.body}</p>
      {manage && (
        <div className="actions">
          {c.status === "draft" && <button type="button" onClick={() => act.mutate("start")}>Start campaign</button>}
          {(c.status === "running" || c.status === "scheduled") && <button type="button" onClick={() => act.mutate("pause")}>Pause campaign</button>}
          {c.status === "paused" && <button type="button" onClick={() => act.mutate("resume")}>Resume campaign</button>}
          {(c.status === "completed" || c.status === "paused") && s.failed > 0 && (
            <button type="button" className="secondary" onClick={() => act.mutate("retry-failed")}>
              Retry failed
            </button>
          )}
          {["draft", "scheduled", "running", "paused"].includes(c.status) && (
            <ConfirmButton label="Cancel campaign" confirm="Yes, cancel it" onConfirm={() => act.mutate("cancel")} />
          )}
          {["draft", "completed", "cancelled", "failed"].includes(c.status) && (
            <ConfirmButton label="Delete campaign" confirm="Yes, delete" onConfirm={() => remove.mutate()} />
          )}
        </div>
      )}
      <ErrorNote error={act.error ?? remove.error} />
      <h2>Recipients</h2>
      <Select label="Recipient status" name="status" value={status} onChange={(e) => (setStatus(e.target.value), setPage(1))}>
        <option value="">All</option>
        {["pending", "sent", "delivered", "read", "failed", "skipped"].map((x) => (
          <option key={x}>{x}</option>
        ))}
      </Select>
      <ErrorNote error={recipients.error} />
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Phone</th>
              <th scope="col">Status</th>
              <th scope="col">Sent</th>
              <th scope="col">Note</th>
            </tr>
          </thead>
          <tbody>
            {recipients.data?.data.map((r) => (
              <tr key={r.id}>
                <td>{fmtPhone(r.phone)}</td>
                <td>{r.status}</td>
                <td>{fmtDate(r.sentAt)}</td>
                <td>{r.skippedReason ?? (typeof r.error === "string" ? r.error : r.error?.message) ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label="Recipient pages">
        <button type="button" className="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
          Previous page
        </button>
        <span>Page {page}</span>
        <button type="button" className="secondary" disabled={page >= (recipients.data?.pagination?.totalPages ?? 1)} onClick={() => setPage(page + 1)}>
          Next page
        </button>
      </nav>
    </section>
  );
}
