import { useState, type ReactNode } from "react";

/** A destructive action asked twice: the first press shows "Yes, …" and "Keep". */
export function ConfirmButton({ label, confirm, onConfirm, disabled }: { label: string; confirm: ReactNode; onConfirm: () => void; disabled?: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" className="danger" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span className="confirm" role="group" aria-label={`Confirm: ${label}`}>
      <button
        type="button"
        className="danger"
        // the first button went away with the press: keep the keyboard focus on the question
        autoFocus
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirm}
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Keep
      </button>
    </span>
  );
}
