/** A list's timestamp: the time today, the weekday within a week, else the date. */
export function fmtWhen(s: string | null | undefined, now = new Date()): string {
  if (!s) return "";
  const d = new Date(s);
  if (d.toDateString() === now.toDateString()) return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  if (now.getTime() - d.getTime() < 6 * 86_400_000 && d < now) return d.toLocaleDateString([], { weekday: "short" });
  return d.toLocaleDateString([], { day: "numeric", month: "short", year: d.getFullYear() === now.getFullYear() ? undefined : "numeric" });
}

/** The number a conversation belongs to, as the list and the thread header name it. */
export function sessionLabel(s: { name: string | null; phoneNumber: string | null } | null | undefined): string {
  if (!s) return "";
  const phone = s.phoneNumber ? `+${s.phoneNumber.replace(/^\+/, "")}` : "";
  if (!s.name) return phone ? `${phone} (deleted session)` : "deleted session";
  return phone ? `${s.name} · ${phone}` : s.name;
}
