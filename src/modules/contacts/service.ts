import type { AppDeps } from "../../deps.ts";
import { AppError, errors } from "../../errors.ts";
import { assertQuota } from "../billing/quota.ts";
import { countContacts, findContact, findContactByPhone, insertContact, listContacts, touchContactInbound, type ContactRow } from "./repo.ts";

type Deps = Pick<AppDeps, "db" | "sqlite" | "clock" | "log">;

/**
 * Finds or creates the contact of a phone number and records an inbound message from it
 * (push name, time). Call inside the caller's transaction. When the `contacts` quota is used
 * up the message is still kept: the contact is simply not created (returns null).
 */
export function upsertInboundContact(deps: Deps, workspaceId: string, phone: string, pushName: string | null, at: number): string | null {
  const existing = findContactByPhone(deps.db, workspaceId, phone);
  if (existing) {
    touchContactInbound(deps.db, workspaceId, existing.id, pushName, at);
    return existing.id;
  }
  try {
    assertQuota(deps, workspaceId, "contacts", countContacts(deps.db, workspaceId));
  } catch (err) {
    if (err instanceof AppError && err.code === "LIMIT_EXCEEDED") {
      deps.log.warn("contact not created: contacts quota used up", { workspaceId });
      return null;
    }
    throw err;
  }
  const id = Bun.randomUUIDv7();
  insertContact(deps.db, workspaceId, { id, phone, pushName, at, inbound: true });
  return id;
}

/** The id of the contact of a phone number, if the workspace has one. */
export function contactIdByPhone(deps: Pick<AppDeps, "db">, workspaceId: string, phone: string): string | null {
  return findContactByPhone(deps.db, workspaceId, phone)?.id ?? null;
}

/** API shape of a contact. */
export function contactView(c: ContactRow) {
  return {
    id: c.id,
    phone: c.phone,
    name: c.name,
    pushName: c.pushName,
    tags: c.tags,
    attributes: c.attributes,
    optedOut: c.optedOut,
    optedOutAt: c.optedOutAt === null ? null : new Date(c.optedOutAt).toISOString(),
    lastInboundAt: c.lastInboundAt === null ? null : new Date(c.lastInboundAt).toISOString(),
    createdAt: new Date(c.createdAt).toISOString(),
    updatedAt: new Date(c.updatedAt).toISOString(),
  };
}

/** One contact of the workspace (404 otherwise). */
export function getContact(deps: Pick<AppDeps, "db">, workspaceId: string, id: string) {
  const c = findContact(deps.db, workspaceId, id);
  if (!c) throw errors.notFound("Contact");
  return contactView(c);
}

/** A page of the workspace's contacts. */
export function pageContacts(deps: Pick<AppDeps, "db">, workspaceId: string, q: { page: number; limit: number; search?: string }) {
  const { rows, total } = listContacts(deps.db, workspaceId, { search: q.search, limit: q.limit, offset: (q.page - 1) * q.limit });
  return { data: rows.map(contactView), total };
}
