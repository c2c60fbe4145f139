import type { AppDeps } from "../../deps.ts";
import { AppError, errors } from "../../errors.ts";
import { assertQuota, effectiveLimits } from "../billing/quota.ts";
import { groupDefer, groupLocal } from "../../db/group-memo.ts";
import type { ContactListQuery, ContactView, CreateContactInput, UpdateContactInput } from "./model.ts";
import { deleteContactRow, findContact, findContactByPhone, insertContact, listContacts, setContactActivity, setContactPhone, touchInboundById, touchInboundByPhone, contactsOfPhones, type ContactRow } from "./repo.ts";
import { contactCount, insertStoredContact, storedByPhone, updateStoredContact, type StoredContact } from "./store.ts";

type Deps = Pick<AppDeps, "db" | "clock" | "log">;

/** The contact of an inbound message as it is once the message is recorded. */
export interface InboundContact {
  id: string;
  name: string | null;
  pushName: string | null;
}

/**
 * Finds or creates the contact of a phone number and records an inbound message from it
 * (push name, time). Call inside the caller's transaction (one is opened otherwise: the look-up,
 * the quota count and the insert must not interleave with another message from the same phone).
 * When the `contacts` quota is used up the message is still kept: the contact is simply not
 * created (returns null). Answers the contact with its name and latest push name.
 */
export async function upsertInboundContact(deps: Deps, workspaceId: string, phone: string, pushName: string | null, at: number): Promise<InboundContact | null> {
  const upsert = async (): Promise<InboundContact | null> => {
    const existing = await touchInboundByPhone(deps.db, workspaceId, phone, pushName, at);
    return existing ?? (await createInboundContact(deps, workspaceId, phone, pushName, at));
  };
  return deps.db.inTx ? upsert() : deps.db.tx(upsert);
}

/**
 * The contact of an inbound message's phone number, known to be missing (read in the same
 * transaction): created within the `contacts` quota (null when it is used up). Call inside the
 * caller's transaction.
 */
export async function createInboundContact(deps: Deps, workspaceId: string, phone: string, pushName: string | null, at: number): Promise<InboundContact | null> {
  try {
    await assertQuota(deps, workspaceId, "contacts", await contactCount(deps.db, workspaceId));
  } catch (err) {
    if (err instanceof AppError && err.code === "LIMIT_EXCEEDED") {
      deps.log.warn("contact not created: contacts quota used up", { workspaceId });
      return null;
    }
    throw err;
  }
  const id = Bun.randomUUIDv7();
  await insertContact(deps.db, workspaceId, { id, phone, pushName, at, inbound: true });
  return { id, name: null, pushName };
}

/**
 * `createInboundContact` for a step of a group commit of inbound messages (PostgreSQL): the
 * count and the plan are read once per group and workspace (in one flight), the group's new
 * contacts are counted against that room in turn (exactly as one count each would: nothing but
 * the group writes contacts meanwhile), and each insert is sent without waiting for its answer
 * (the group waits for it before its commit; it runs before every later statement of the
 * group). Null when the quota is used up. Outside a group it is `createInboundContact`.
 */
export async function createInboundContactInGroup(deps: Deps, workspaceId: string, phone: string, pushName: string | null, at: number): Promise<InboundContact | null> {
  const room = groupLocal(`contacts.inbound-room\u0000${workspaceId}`, () => ({ left: undefined as Promise<number> | number | undefined }));
  if (!room) return createInboundContact(deps, workspaceId, phone, pushName, at);
  room.left ??= Promise.all([contactCount(deps.db, workspaceId), effectiveLimits(deps, workspaceId)]).then(([count, limits]) => limits.contacts - count);
  const left = await room.left;
  if (left < 1) {
    deps.log.warn("contact not created: contacts quota used up", { workspaceId });
    return null;
  }
  room.left = left - 1;
  const id = Bun.randomUUIDv7();
  await groupDefer(insertContact(deps.db, workspaceId, { id, phone, pushName, at, inbound: true }));
  return { id, name: null, pushName };
}

/** The contacts of several phone numbers (of inbound messages about to be stored), by phone: one read. */
export async function inboundContactsOf(deps: Pick<AppDeps, "db">, workspaceId: string, phones: string[]): Promise<Map<string, InboundContact>> {
  return contactsOfPhones(deps.db, workspaceId, phones);
}

/**
 * `upsertInboundContact` for a contact already known (read in the same transaction): records the
 * message on it and answers it as it now is. `send` gets the write (to await, or to send without
 * waiting for its answer).
 */
export function touchKnownInboundContact(
  deps: Pick<AppDeps, "db">,
  workspaceId: string,
  known: InboundContact,
  pushName: string | null,
  at: number,
  send: (write: Promise<void>) => Promise<void>,
): Promise<InboundContact> {
  return send(touchInboundById(deps.db, workspaceId, known.id, pushName, at)).then(() => ({ id: known.id, name: known.name, pushName: pushName ?? known.pushName }));
}

/**
 * One person recorded twice: as `fromPhone` (a LID address, `<digits>@lid`) and as `toPhone`
 * (the number behind it). The number's contact stays and takes over what the other one knew
 * (its name when the number's has none, tags, attributes the number's lacks, an opt-out, the
 * latest push name and inbound time); the other is deleted. With only the LID's contact, it
 * simply moves to the number. Returns the contact of the number afterwards (null if neither
 * existed). Call inside the caller's transaction (`db.tx`): the reads and writes must not interleave.
 */
export async function mergeContactInto(deps: Pick<AppDeps, "db">, workspaceId: string, fromPhone: string, toPhone: string, at: number): Promise<string | null> {
  const from = await findContactByPhone(deps.db, workspaceId, fromPhone);
  const into = await findContactByPhone(deps.db, workspaceId, toPhone);
  if (!from) return into?.id ?? null;
  if (!into) {
    await setContactPhone(deps.db, workspaceId, from.id, toPhone, at);
    return from.id;
  }
  const before: StoredContact = { id: into.id, name: into.name, tags: into.tags, attributes: into.attributes, optedOut: into.optedOut, optedOutAt: into.optedOutAt };
  await updateStoredContact(
    deps.db,
    workspaceId,
    before,
    {
      name: into.name ?? from.name,
      tags: [...new Set([...into.tags, ...from.tags])],
      attributes: { ...from.attributes, ...into.attributes },
      optedOut: into.optedOut || from.optedOut,
    },
    at,
  );
  const fromLater = (from.lastInboundAt ?? 0) > (into.lastInboundAt ?? 0);
  await setContactActivity(
    deps.db,
    workspaceId,
    into.id,
    (fromLater ? (from.pushName ?? into.pushName) : (into.pushName ?? from.pushName)) ?? null,
    fromLater ? from.lastInboundAt : into.lastInboundAt,
    at,
  );
  await deleteContactRow(deps.db, workspaceId, from.id);
  return into.id;
}

/** The id of the contact of a phone number, if the workspace has one. */
export async function contactIdByPhone(deps: Pick<AppDeps, "db">, workspaceId: string, phone: string): Promise<string | null> {
  return (await findContactByPhone(deps.db, workspaceId, phone))?.id ?? null;
}

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/** API shape of a contact. */
export function contactView(c: ContactRow): ContactView {
  return {
    id: c.id,
    phone: c.phone,
    name: c.name,
    pushName: c.pushName,
    tags: c.tags,
    attributes: c.attributes,
    optedOut: c.optedOut,
    optedOutAt: iso(c.optedOutAt),
    lastInboundAt: iso(c.lastInboundAt),
    createdAt: new Date(c.createdAt).toISOString(),
    updatedAt: new Date(c.updatedAt).toISOString(),
  };
}

/** One contact of the workspace (404 otherwise). */
export async function getContact(deps: Pick<AppDeps, "db">, workspaceId: string, id: string): Promise<ContactView> {
  const c = await findContact(deps.db, workspaceId, id);
  if (!c) throw errors.notFound("Contact");
  return contactView(c);
}

/** A page of the workspace's contacts. */
export async function pageContacts(deps: Pick<AppDeps, "db">, workspaceId: string, q: ContactListQuery) {
  const { rows, total } = await listContacts(deps.db, workspaceId, { ...q, offset: (q.page - 1) * q.limit });
  return { data: rows.map(contactView), total };
}

/**
 * Creates a contact: 409 when the phone exists, 403 LIMIT_EXCEEDED past the plan's contacts.
 * Count and insert share one write transaction, so parallel creates (even from another
 * process or node) cannot both take the last place.
 */
export async function createContact(deps: Deps, workspaceId: string, input: CreateContactInput): Promise<ContactView> {
  const id = Bun.randomUUIDv7();
  const at = deps.clock.now().getTime();
  await deps.db.tx(async () => {
    if (await storedByPhone(deps.db, workspaceId, input.phone)) throw errors.conflict("A contact with this phone number exists");
    await assertQuota(deps, workspaceId, "contacts", await contactCount(deps.db, workspaceId));
    await insertStoredContact(deps.db, workspaceId, {
      id,
      phone: input.phone,
      name: input.name || null,
      pushName: null,
      tags: input.tags ?? [],
      attributes: input.attributes ?? {},
      optedOut: false,
      lastInboundAt: null,
      at,
    });
  });
  return getContact(deps, workspaceId, id);
}

/** Changes name, tags (replaced), attributes (replaced) or the opt-out of a contact. */
export async function updateContact(deps: Deps, workspaceId: string, id: string, input: UpdateContactInput): Promise<ContactView> {
  await deps.db.tx(async () => {
    const row = await findContact(deps.db, workspaceId, id);
    if (!row) throw errors.notFound("Contact");
    const before: StoredContact = { id, name: row.name, tags: row.tags, attributes: row.attributes, optedOut: row.optedOut, optedOutAt: row.optedOutAt };
    await updateStoredContact(
      deps.db,
      workspaceId,
      before,
      {
        name: input.name === undefined ? row.name : input.name || null,
        tags: input.tags ?? row.tags,
        attributes: input.attributes ?? row.attributes,
        optedOut: input.optedOut ?? row.optedOut,
      },
      deps.clock.now().getTime(),
    );
  });
  return getContact(deps, workspaceId, id);
}

/** Deletes a contact (conversations keep their history, unlinked). */
export async function deleteContact(deps: Pick<AppDeps, "db">, workspaceId: string, id: string): Promise<void> {
  if (!(await deleteContactRow(deps.db, workspaceId, id))) throw errors.notFound("Contact");
}
