/** `919876543210` -> `91******3210`: the country code and the last four digits stay readable. */
export function maskPhone(phone: string | null | undefined): string | null {
  if (!phone) return null;
  if (phone.length <= 6) return "*".repeat(phone.length);
  return phone.slice(0, 2) + "*".repeat(phone.length - 6) + phone.slice(-4);
}

/** `john.doe@example.com` -> `j***e@example.com`. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return "***";
  const local = email.slice(0, at);
  const tail = local.length > 2 ? local.slice(-1) : "";
  return `${local[0]}***${tail}${email.slice(at)}`;
}
