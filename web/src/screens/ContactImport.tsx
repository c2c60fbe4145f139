import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { api, get } from "../api/client.ts";
import { ErrorNote } from "../ui/errors.tsx";
import { Field, Progress } from "../ui/Field.tsx";

interface ImportJob {
  id: string;
  status: "queued" | "running" | "completed" | "failed";
  total: number;
  processed: number;
  created: number;
  updated: number;
  rejected: number;
  errors: { row: number; message: string }[];
}

/** CSV import (docs/contacts-and-campaigns.md): upload, then the job's progress until it ends. */
export function ContactImport() {
  const qc = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const job = useQuery({
    queryKey: ["import", jobId],
    queryFn: () => get<ImportJob>(`/api/v1/contacts/imports/${jobId}`),
    enabled: !!jobId,
    refetchInterval: (q) => (q.state.data && (q.state.data.status === "completed" || q.state.data.status === "failed") ? false : 500),
  });
  const done = job.data?.status === "completed" || job.data?.status === "failed";
  useEffect(() => {
    if (done) void qc.invalidateQueries({ queryKey: ["contacts"] });
  }, [done, qc]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!file) return;
    setError(null);
    const fd = new FormData();
    fd.append("file", file);
    try {
      const r = await api<{ id: string }>("POST", "/api/v1/contacts/import", fd);
      setJobId(r.data.id);
    } catch (err) {
      setError(err);
    }
  };

  const j = job.data;
  return (
    <details className="panel" open={!!jobId || undefined}>
      <summary>Import a CSV</summary>
      <form onSubmit={submit} noValidate>
        <Field
          label="CSV file"
          name="file"
          type="file"
          accept=".csv,text/csv"
          hint="A header row with a phone column; optional name, tags (separated by ; or |), optedOut; other columns become attributes."
          onChange={(e) => setFile(e.target.files?.[0] ?? null)}
          error={error}
        />
        <ErrorNote error={error} />
        <button type="submit" disabled={!file}>
          Import
        </button>
      </form>
      {j && (
        <div className="import-status" role="status" aria-live="polite">
          <p>
            Import {j.status}: {j.processed} of {j.total || "?"} rows · {j.created} created · {j.updated} updated · {j.rejected} rejected
          </p>
          <Progress label="Import progress" value={j.processed} max={j.total || j.processed || 1} />
          {j.errors.length > 0 && (
            <details>
              <summary>{j.errors.length} rejected rows</summary>
              <ul>
                {j.errors.slice(0, 100).map((e) => (
                  <li key={e.row}>
                    Row {e.row}: {e.message}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </div>
      )}
    </details>
  );
}
