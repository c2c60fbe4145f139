import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { api, del, patch, post, qs } from "../api/client.ts";
import { can } from "../api/roles.ts";
import type { Contact } from "../api/types.ts";
import { ConfirmButton } from "../ui/ConfirmButton.tsx";
import { download } from "../ui/download.ts";
import { ErrorNote } from "../ui/errors.tsx";
import { Field, Select, TextArea } from "../ui/Field.tsx";
import { fmtPhone, useAction, useAuth } from "../ui/hooks.ts";
import { parsePairs, splitTags } from "../ui/text.ts";
import { ContactImport } from "./ContactImport.tsx";

/** Contacts (docs/contacts-and-campaigns.md): search, tag and opt-out filters, edit, import with progress, export. */
export function Contacts() {
  const { claims } = useAuth();
  const messaging = can(claims?.role, "messaging");
  const [search, setSearch] = useState("");
  const [tag, setTag] = useState("");
  const [optedOut, setOptedOut] = useState("");
  const [page, setPage] = useState(1);
  const filters = { search, tag: tag ? splitTags(tag) : undefined, optedOut: optedOut || undefined };
  const list = useQuery({
    queryKey: ["contacts", filters, page],
    queryFn: () => api<Contact[]>("GET", `/api/v1/contacts${qs({ ...filters, page, limit: 25 })}`),
  });
  const [editing, setEditing] = useState<Contact | null>(null);
  const [exportError, setExportError] = useState<unknown>(null);
  const pages = list.data?.pagination?.totalPages ?? 1;
  const closeEditor = (id: string) => {
    setEditing(null);
    // the editor had the focus: keyboard users go on from the row they edited, not the page top
    requestAnimationFrame(() => document.querySelector<HTMLElement>(`button[data-contact="${id}"]`)?.focus());
  };

  return (
    <section>
      <h1>Contacts</h1>
      <div className="filters">
        <Field label="Search (phone or name)" name="search" type="search" value={search} onChange={(e) => (setSearch(e.target.value), setPage(1))} />
        <Field label="Tags (any of, comma-separated)" name="tag" value={tag} onChange={(e) => (setTag(e.target.value), setPage(1))} />
        <Select label="Opt-out" name="optedOut" value={optedOut} onChange={(e) => (setOptedOut(e.target.value), setPage(1))}>
          <option value="">Everyone</option>
          <option value="false">Opted in</option>
          <option value="true">Opted out</option>
        </Select>
      </div>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setExportError(null);
            download(`/api/v1/contacts/export${qs(filters)}`, "contacts.csv").catch(setExportError);
          }}
        >
          Export CSV
        </button>
      </div>
      <ErrorNote error={exportError ?? list.error} />
      {messaging && <NewContact />}
      {messaging && <ContactImport />}
      {list.data?.data.length === 0 && <p className="empty">No contacts match.</p>}
      <div className="table-wrap">
        <table>
          <caption className="sr-only">Contacts</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Phone</th>
              <th scope="col">Tags</th>
              <th scope="col">Status</th>
              {messaging && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {list.data?.data.map((c) => (
              <tr key={c.id}>
                <td>{c.name ?? c.pushName ?? "—"}</td>
                <td>{fmtPhone(c.phone)}</td>
                <td>{c.tags.map((t) => <span key={t} className="tag">{t}</span>)}</td>
                <td>{c.optedOut ? "Opted out" : "Opted in"}</td>
                {messaging && (
                  <td>
                    <button type="button" className="secondary small" onClick={() => setEditing(c)} aria-label={`Edit ${c.name ?? c.phone}`} data-contact={c.id}>
                      Edit
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label="Pages">
        <button type="button" className="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
          Previous page
        </button>
        <span>
          Page {page} of {pages}
        </span>
        <button type="button" className="secondary" disabled={page >= pages} onClick={() => setPage(page + 1)}>
          Next page
        </button>
      </nav>
      {editing && <EditContact key={editing.id} c={editing} onClose={() => closeEditor(editing.id)} />}
    </section>
  );
}

function NewContact() {
  const [phone, setPhone] = useState("");
  const [name, setName] = useState("");
  const [tags, setTags] = useState("");
  const create = useAction(() => post("/api/v1/contacts", { phone, name: name || undefined, tags: splitTags(tags) }), [["contacts"]], () => {
    setPhone("");
    setName("");
    setTags("");
  });
  return (
    <details className="panel">
      <summary>Add a contact</summary>
      <form onSubmit={(e: FormEvent) => (e.preventDefault(), create.mutate())} noValidate>
        <Field label="Phone" name="phone" type="tel" required value={phone} onChange={(e) => setPhone(e.target.value)} error={create.error} />
        <Field label="Name" name="name" value={name} onChange={(e) => setName(e.target.value)} error={create.error} />
        <Field label="Tags (comma-separated)" name="tags" value={tags} onChange={(e) => setTags(e.target.value)} error={create.error} />
        <ErrorNote error={create.error} />
        <button type="submit">Add contact</button>
      </form>
    </details>
  );
}

function EditContact({ c, onClose }: { c: Contact; onClose: () => void }) {
  const [name, setName] = useState(c.name ?? "");
  const [tags, setTags] = useState(c.tags.join(", "));
  const [attrs, setAttrs] = useState(Object.entries(c.attributes ?? {}).map(([k, v]) => `${k}=${v}`).join("\n"));
  const [optedOut, setOptedOut] = useState(c.optedOut);
  const save = useAction(
    () => {
      const attributes = parsePairs(attrs);
      return patch(`/api/v1/contacts/${c.id}`, { name: name || undefined, tags: splitTags(tags), attributes, optedOut });
    },
    [["contacts"]],
    onClose,
  );
  const remove = useAction(() => del(`/api/v1/contacts/${c.id}`), [["contacts"]], onClose);
  // the form opens below the list: bring it into view and put the focus in it
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.scrollIntoView({ block: "start" });
    heading.current?.focus({ preventScroll: true });
  }, []);
  return (
    <section className="panel" aria-label={`Edit ${c.name ?? c.phone}`}>
      <h2 ref={heading} tabIndex={-1}>
        Edit {fmtPhone(c.phone)}
      </h2>
      <form onSubmit={(e) => (e.preventDefault(), save.mutate())} noValidate>
        <Field label="Name" name="name" value={name} onChange={(e) => setName(e.target.value)} error={save.error} />
        <Field label="Tags (comma-separated)" name="tags" value={tags} onChange={(e) => setTags(e.target.value)} error={save.error} />
        <TextArea label="Attributes (one key=value a line)" name="attributes" rows={3} value={attrs} onChange={(e) => setAttrs(e.target.value)} error={save.error} />
        <div className="check">
          <input id="optedOut" type="checkbox" checked={optedOut} onChange={(e) => setOptedOut(e.target.checked)} />
          <label htmlFor="optedOut">Opted out (receives no campaigns)</label>
        </div>
        <ErrorNote error={save.error ?? remove.error} />
        <div className="actions">
          <button type="submit">Save contact</button>
          <button type="button" className="secondary" onClick={onClose}>
            Cancel
          </button>
          <ConfirmButton label="Delete contact" confirm="Yes, delete" onConfirm={() => remove.mutate()} />
        </div>
      </form>
    </section>
  );
}
