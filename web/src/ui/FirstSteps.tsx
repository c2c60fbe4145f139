import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import { api, get } from "../api/client.ts";
import type { Session } from "../api/types.ts";

const DISMISSED = "parley.firstSteps.dismissed";

interface Step {
  done: boolean;
  title: string;
  href: string;
  how: string;
}

/**
 * The first steps of a new workspace, where a newcomer lands: pair a number, import contacts,
 * send a first message, add a webhook. Each ticks itself off from the workspace's own data;
 * gone when all are done or when dismissed (in this browser).
 */
export function FirstSteps() {
  const [dismissed, setDismissed] = useState(() => localStorage.getItem(DISMISSED) === "1");
  // read afresh each time the home screen opens (staleTime 0): a step done elsewhere a moment ago must show as done
  const sessions = useQuery({ queryKey: ["sessions"], queryFn: () => get<Session[]>("/api/v1/chatapp?limit=100"), enabled: !dismissed, staleTime: 0 });
  const contacts = useQuery({ queryKey: ["contacts", "first-steps"], queryFn: () => api<unknown[]>("GET", "/api/v1/contacts?limit=1"), enabled: !dismissed, staleTime: 0 });
  const sent = useQuery({ queryKey: ["messages", "first-steps"], queryFn: () => get<unknown[]>("/api/v1/messages?direction=outbound&limit=1"), enabled: !dismissed, staleTime: 0 });
  const hooks = useQuery({ queryKey: ["webhooks"], queryFn: () => get<unknown[]>("/api/webhooks"), enabled: !dismissed, staleTime: 0 });
  if (dismissed || !sessions.data || !contacts.data || !sent.data || !hooks.data) return null;
  const steps: Step[] = [
    { done: sessions.data.some((s) => s.status === "connected"), title: "Pair a number", href: "/sessions", how: "Create a session and scan its QR code with the phone's Linked devices screen." },
    { done: (contacts.data.pagination?.total ?? contacts.data.data.length) > 0, title: "Import a contact list", href: "/contacts", how: "Upload a CSV with a phone column (name, tags and any other columns are kept too)." },
    { done: sent.data.length > 0, title: "Send a first message", href: "/campaigns/new", how: "Start a campaign to your contacts, or reply in the inbox." },
    { done: hooks.data.length > 0, title: "Add a webhook", href: "/webhooks", how: "Have your own systems told about messages as they come and go." },
  ];
  if (steps.every((s) => s.done)) return null;
  const left = steps.filter((s) => !s.done).length;
  return (
    <section className="panel first-steps" aria-labelledby="first-steps">
      <h2 id="first-steps">First steps</h2>
      <p className="muted">{left === 1 ? "One step left." : `${left} of ${steps.length} steps left.`}</p>
      <ol>
        {steps.map((s) => (
          <li key={s.title} className={s.done ? "done" : undefined}>
            <span aria-hidden="true">{s.done ? "✓ " : "○ "}</span>
            {s.done ? (
              <span>
                {s.title} <span className="sr-only">(done)</span>
              </span>
            ) : (
              <>
                <Link href={s.href}>{s.title}</Link>
                <span className="muted"> — {s.how}</span>
              </>
            )}
          </li>
        ))}
      </ol>
      <button
        type="button"
        className="secondary small"
        onClick={() => {
          localStorage.setItem(DISMISSED, "1");
          setDismissed(true);
        }}
      >
        Hide these steps
      </button>
    </section>
  );
}
