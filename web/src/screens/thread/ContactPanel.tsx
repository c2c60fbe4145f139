import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link } from "wouter";
import { get, qs } from "../../api/client.ts";
import type { Contact, Conversation } from "../../api/types.ts";
import { fmtAddress, fmtPhone } from "../../ui/hooks.ts";
import { sessionLabel } from "../inbox/when.ts";

/** Beside the thread: the contact (name, phone, tags, attributes, opt-out) and its other conversations. */
export function ContactPanel({ c }: { c: Conversation }) {
  const contact = useQuery({ queryKey: ["contact", c.contact?.id], queryFn: () => get<Contact>(`/api/v1/contacts/${c.contact!.id}`), enabled: !!c.contact });
  const others = useQuery({
    queryKey: ["conversations", "same-person", c.phone],
    queryFn: () => get<Conversation[]>(`/api/v1/inbox/conversations${qs({ q: c.phone, limit: 20 })}`),
    enabled: !c.groupId,
  });
  if (c.groupId) return null;
  const k = contact.data;
  const rest = (others.data ?? []).filter((o) => o.id !== c.id && o.phone === c.phone);
  return (
    <aside className="contact-panel" aria-label="Contact">
      <h3>Contact</h3>
      {!c.contact && <p className="muted">This number is not a contact.</p>}
      <dl>
        <Row term="Name">{k?.name ?? c.contact?.name ?? c.contact?.pushName ?? "—"}</Row>
        <Row term="Phone">{fmtAddress(c.phone)}</Row>
        {k && (
          <>
            <Row term="Tags">{k.tags.length ? k.tags.map((t) => <span key={t} className="badge">{t} </span>) : "none"}</Row>
            {Object.entries(k.attributes).map(([key, v]) => (
              <Row key={key} term={key}>
                {v}
              </Row>
            ))}
            <Row term="Campaign messages">{k.optedOut ? <strong>Opted out</strong> : "Subscribed"}</Row>
          </>
        )}
      </dl>
      <h4>Other conversations</h4>
      {rest.length === 0 ? (
        <p className="muted">None on other numbers.</p>
      ) : (
        <ul aria-label="Other conversations">
          {rest.map((o) => (
            <li key={o.id}>
              <Link href={`/inbox/${o.id}`}>with {sessionLabel(o.session) || fmtPhone(o.sessionId)}</Link>
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}

function Row({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="dl-row">
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}
