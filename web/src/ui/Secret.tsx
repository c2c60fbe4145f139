import { useState } from "react";

/** A credential shown once: the text, a copy button and a warning. */
export function Secret({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="secret" role="alert">
      <p>
        <strong>{label}</strong> — copy it now: it is not shown again.
      </p>
      <code data-testid="secret">{value}</code>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          onClick={() => {
            void navigator.clipboard?.writeText(value).then(() => setCopied(true));
          }}
        >
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </div>
  );
}
