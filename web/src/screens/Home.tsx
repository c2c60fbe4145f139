import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import { get, qs } from "../api/client.ts";
import type { CampaignRates, DayFigures, Session } from "../api/types.ts";
import { BarChart, RateBar } from "../ui/charts.tsx";
import { ErrorNote } from "../ui/errors.tsx";
import { Select } from "../ui/Field.tsx";
import { useUnreadConversations } from "../ui/notify.tsx";

const fmtSeconds = (s: number | null) => (s === null ? "—" : s < 90 ? `${s} s` : s < 5400 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`);

/** Home: the last 30 days of messages per day, response times and campaigns' rates, as charts. */
export function Home() {
  const [sessionId, setSessionId] = useState("");
  const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const sessions = useQuery({ queryKey: ["sessions"], queryFn: () => get<Session[]>("/api/v1/chatapp?limit=100") });
  const days = useQuery({
    queryKey: ["analytics", "messages", sessionId, timezone],
    queryFn: () => get<DayFigures[]>(`/api/v1/analytics/messages${qs({ sessionId: sessionId || undefined, timezone })}`),
  });
  const campaigns = useQuery({ queryKey: ["analytics", "campaigns"], queryFn: () => get<CampaignRates[]>("/api/v1/analytics/campaigns?limit=5") });
  const unread = useUnreadConversations();
  const rows = days.data ?? [];
  const total = (k: keyof DayFigures) => rows.reduce((n, r) => n + (Number(r[k]) || 0), 0);
  const medians = rows.map((r) => r.firstResponseSecondsMedian).filter((v): v is number => v !== null);

  return (
    <section className="home">
      <h1>Home</h1>
      <p>
        <Link href="/inbox">{unread > 0 ? `${unread} ${unread === 1 ? "conversation" : "conversations"} with unread messages` : "Inbox: nothing unread"}</Link>
      </p>
      <Select label="Number" name="sessionId" value={sessionId} onChange={(e) => setSessionId(e.target.value)}>
        <option value="">All numbers</option>
        {sessions.data?.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
          </option>
        ))}
      </Select>
      <ErrorNote error={days.error ?? campaigns.error} />
      <dl className="totals">
        <div className="dl-row"><dt>Received (30 days)</dt><dd>{total("received")}</dd></div>
        <div className="dl-row"><dt>Sent</dt><dd>{total("sent")}</dd></div>
        <div className="dl-row"><dt>Read</dt><dd>{total("read")}</dd></div>
        <div className="dl-row"><dt>Failed</dt><dd>{total("failed")}</dd></div>
        <div className="dl-row"><dt>Typical first response</dt><dd>{fmtSeconds(medians.length ? medians.sort((a, b) => a - b)[Math.floor(medians.length / 2)]! : null)}</dd></div>
      </dl>
      {days.isSuccess && (
        <div className="charts">
          <BarChart
            title="Messages per day"
            days={rows.map((r) => r.date)}
            series={[
              { key: "received", label: "Received" },
              { key: "sent", label: "Sent" },
              { key: "read", label: "Read" },
              { key: "failed", label: "Failed" },
            ]}
            rows={rows as unknown as Record<string, number | null>[]}
          />
          <BarChart
            title="Median first response (seconds)"
            days={rows.map((r) => r.date)}
            series={[{ key: "firstResponseSecondsMedian", label: "Median first response" }]}
            rows={rows as unknown as Record<string, number | null>[]}
          />
        </div>
      )}
      <h2>Recent campaigns</h2>
      {campaigns.isSuccess && campaigns.data.length === 0 && <p className="empty">No campaigns yet.</p>}
      <ul className="campaign-rates">
        {campaigns.data?.map((c) => (
          <li key={c.id}>
            <Link href={`/campaigns/${c.id}`}>{c.name}</Link> <span className="badge">{c.status}</span>
            <RateBar label="Delivered" rate={c.deliveredRate} />
            <RateBar label="Read" rate={c.readRate} />
          </li>
        ))}
      </ul>
    </section>
  );
}
