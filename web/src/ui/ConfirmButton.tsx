import { useEffect, useRef, useState, type ReactNode } from "react";

/** A destructive action asked twice: the first press shows "Yes, …" and "Keep". */
export function ConfirmButton({ label, confirm, onConfirm, disabled }: { label: string; confirm: ReactNode; onConfirm: () => void; disabled?: boolean }) {
  const [asking, setAsking] = useState(false);
  const first = useRef<HTMLButtonElement>(null);
  // "Keep" removes the button that had the focus: hand it back to the question's own button,
  // or the keyboard user starts again from the top of the page
  const refocus = useRef(false);
  useEffect(() => {
    if (asking || !refocus.current) return;
    refocus.current = false;
    first.current?.focus();
  }, [asking]);
  if (!asking)
    return (
      <button type="button" className="danger" ref={first} disabled={disabled} onClick={() => setAsking(true)}>
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
      <button
        type="button"
        className="secondary"
        onClick={() => {
          refocus.current = true;
          setAsking(false);
        }}
      >
        Keep
      </button>
    </span>
  );
}
