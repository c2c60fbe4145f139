import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api, get, post } from "../api/client.ts";
import { can } from "../api/roles.ts";
import { ErrorNote } from "../ui/errors.tsx";
import { Progress, Select } from "../ui/Field.tsx";
import { fmtDate, useAction, useAuth } from "../ui/hooks.ts";

interface Subscription {
  planId: string;
  planName: string;
  status: string;
  trialEndsAt: string | null;
  currentPeriodEnd: string | null;
  interval: string | null;
  checkoutAvailable: boolean;
  unlimited?: boolean;
  usage: Record<string, { used: number; limit: number | null }>;
}
interface Plan {
  id: string;
  name: string;
  currency: string;
  monthlyPrice: number;
  annualPrice: number;
}
interface Invoice {
  id: string;
  planId: string;
  amount?: number;
  currency?: string;
  status: string;
  createdAt: string;
}
interface Order {
  orderId: string;
  amount: number;
  currency: string;
  keyId: string;
}

const QUOTA: Record<string, string> = {
  sessions: "Sessions",
  messagesPerMonth: "Messages this month",
  contacts: "Contacts",
  apiRequestsPerDay: "API requests today",
  webhooks: "Webhooks",
  teamSeats: "Team seats",
};

/** Billing (docs/team-and-billing.md): plan, usage against each quota, invoices, checkout (owner only). */
export function Billing() {
  const { claims } = useAuth();
  const owner = can(claims?.role, "billing");
  const sub = useQuery({ queryKey: ["subscription"], queryFn: () => get<Subscription>("/api/billing/subscription") });
  const plans = useQuery({ queryKey: ["plans"], queryFn: () => get<Plan[]>("/api/billing/plans") });
  const invoices = useQuery({ queryKey: ["invoices"], queryFn: () => api<Invoice[]>("GET", "/api/billing/invoices?limit=50") });
  const [interval, setInterval] = useState("monthly");
  const checkout = useAction((planId: string) => post<Order>("/api/billing/checkout", { planId, interval }));
  const s = sub.data;
  if (s?.unlimited)
    return (
      <section>
        <h1>Plan</h1>
        <p>This workspace is on the server operator's unlimited plan: no quotas, no trial and nothing to pay.</p>
      </section>
    );

  return (
    <section>
      <h1>Billing</h1>
      <ErrorNote error={sub.error} />
      {s && (
        <div className="panel">
          <h2>
            {s.planName} <span className="badge">{s.status}</span>
          </h2>
          {s.trialEndsAt && s.status === "trialing" && <p>The trial ends {fmtDate(s.trialEndsAt)}.</p>}
          {s.currentPeriodEnd && <p>Paid until {fmtDate(s.currentPeriodEnd)} ({s.interval}).</p>}
          <h3>Usage</h3>
          {Object.entries(s.usage).map(([k, u]) => (
            <div key={k} className="usage">
              <span>{QUOTA[k] ?? k}</span>
              <Progress label={QUOTA[k] ?? k} value={u.used} max={u.limit ?? u.used} />
            </div>
          ))}
        </div>
      )}
      <h2>Plans</h2>
      {owner && (
        <Select label="Billing interval" name="interval" value={interval} onChange={(e) => setInterval(e.target.value)}>
          <option value="monthly">Monthly</option>
          <option value="annual">Annual (12 months upfront)</option>
        </Select>
      )}
      <ul className="cards">
        {plans.data
          ?.filter((p) => p.monthlyPrice > 0)
          .map((p) => (
            <li key={p.id} className="card">
              <h3>{p.name}</h3>
              <p>
                {p.currency} {interval === "annual" ? `${p.annualPrice} a year` : `${p.monthlyPrice} a month`}
              </p>
              {owner && (
                <button type="button" onClick={() => checkout.mutate(p.id)} disabled={!s?.checkoutAvailable}>
                  Choose {p.name}
                </button>
              )}
            </li>
          ))}
      </ul>
      {owner && s && !s.checkoutAvailable && <p className="note">Billing is handled by the operator of this server: ask them to change the plan.</p>}
      {checkout.data && (
        <p role="status">
          Order {checkout.data.orderId} created for {checkout.data.currency} {(checkout.data.amount / 100).toFixed(2)}. Pay it with Razorpay; the plan starts when the payment is confirmed.
        </p>
      )}
      <ErrorNote error={checkout.error} />
      <h2>Invoices</h2>
      <ErrorNote error={invoices.error} />
      {invoices.data?.data.length === 0 && <p className="empty">No invoices yet.</p>}
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">Plan</th>
              <th scope="col">Amount</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {invoices.data?.data.map((i) => (
              <tr key={i.id}>
                <td>{fmtDate(i.createdAt)}</td>
                <td>{i.planId}</td>
                <td>{i.amount !== undefined ? `${i.currency ?? ""} ${(i.amount / 100).toFixed(2)}` : "—"}</td>
                <td>{i.status}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
