/** `bytes` random bytes as base64url (32 bytes = 256 bits). */
export function randomToken(bytes = 32): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");
}

/** A uniformly random string of `length` digits (no modulo bias). */
export function randomDigits(length: number): string {
  let out = "";
  while (out.length < length) {
    const [b] = crypto.getRandomValues(new Uint8Array(1));
    if (b! < 250) out += String(b! % 10);
  }
  return out;
}

/** `length` characters drawn uniformly from `alphabet`. */
export function randomFrom(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    const [b] = crypto.getRandomValues(new Uint8Array(1));
    if (b! < limit) out += alphabet[b! % alphabet.length];
  }
  return out;
}
