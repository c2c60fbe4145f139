import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { get, patch } from "../api/client.ts";
import { ErrorNote } from "../ui/errors.tsx";
import { Field } from "../ui/Field.tsx";
import { useAction } from "../ui/hooks.ts";

interface Workspace {
  name: string;
  require2fa: boolean;
  optOutKeywords?: string[];
  optInKeywords?: string[];
  /** IANA time zone of the auto-replies' away hours */
  timezone?: string;
}

const words = (s: string) => s.split(",").map((w) => w.trim()).filter(Boolean);

/** Workspace settings (owner, admin): name, the second factor for everyone, opt-out keywords (docs/contacts-and-campaigns.md). */
export function WorkspaceSettings() {
  const ws = useQuery({ queryKey: ["workspace"], queryFn: () => get<Workspace>("/api/workspace") });
  if (!ws.data) return <ErrorNote error={ws.error} />;
  // not keyed on the data: a save refetches it, and a new form would drop "Saved." and fold the panel
  return <Form w={ws.data} />;
}

function Form({ w }: { w: Workspace }) {
  const [name, setName] = useState(w.name);
  const [require2fa, setRequire2fa] = useState(w.require2fa);
  const [optOut, setOptOut] = useState(w.optOutKeywords?.join(", ") ?? "");
  const [optIn, setOptIn] = useState(w.optInKeywords?.join(", ") ?? "");
  const [timezone, setTimezone] = useState(w.timezone ?? "");
  const save = useAction(() => {
    const body: Record<string, unknown> = {};
    if (name !== w.name) body.name = name;
    if (require2fa !== w.require2fa) body.require2fa = require2fa;
    // only servers with contacts (docs/contacts-and-campaigns.md) know the keywords
    if (w.optOutKeywords && optOut !== w.optOutKeywords.join(", ")) body.optOutKeywords = words(optOut);
    if (w.optInKeywords && optIn !== w.optInKeywords.join(", ")) body.optInKeywords = words(optIn);
    if (w.timezone !== undefined && timezone !== w.timezone) body.timezone = timezone;
    return patch("/api/workspace", body);
  }, [["workspace"], ["profile"]]);
  return (
    <details className="panel">
      <summary>Workspace settings</summary>
      <form onSubmit={(e: FormEvent) => (e.preventDefault(), save.mutate())} noValidate>
        <Field label="Workspace name" name="name" value={name} onChange={(e) => setName(e.target.value)} error={save.error} />
        <div className="check">
          <input id="require2fa" type="checkbox" checked={require2fa} onChange={(e) => setRequire2fa(e.target.checked)} />
          <label htmlFor="require2fa">Every member signs in with a code sent to their mobile (second factor)</label>
        </div>
        {w.optOutKeywords && (
          <Field label="Opt-out keywords (comma-separated)" name="optOutKeywords" value={optOut} onChange={(e) => setOptOut(e.target.value)} error={save.error} />
        )}
        {w.optInKeywords && <Field label="Opt-in keywords (comma-separated)" name="optInKeywords" value={optIn} onChange={(e) => setOptIn(e.target.value)} error={save.error} />}
        {w.timezone !== undefined && (
          <Field label="Time zone (IANA, for auto-replies' away hours)" name="timezone" hint="For example Asia/Kolkata or Europe/Berlin" value={timezone} onChange={(e) => setTimezone(e.target.value)} error={save.error} />
        )}
        <ErrorNote error={save.error} />
        {save.isSuccess && <p role="status">Saved.</p>}
        <button type="submit">Save settings</button>
      </form>
    </details>
  );
}
