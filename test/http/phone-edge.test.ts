import { expect, test } from "bun:test";
import { phoneField } from "../../src/http/phone.ts";

// Numbers as people really write them: with an international call prefix instead of the plus,
// with the national trunk prefix in brackets after the country code, or as a JSON number.

const parse = (raw: unknown) => {
  const r = phoneField.safeParse(raw);
  return r.success ? { ok: r.data } : { error: r.error.issues[0]!.message };
};

test("00 and 011 (the call prefixes people dial instead of +) are dropped", () => {
  expect(parse("0091 98000 00001")).toEqual({ ok: "919800000001" });
  expect(parse("00919800000001")).toEqual({ ok: "919800000001" });
  expect(parse("011 44 7911 123456")).toEqual({ ok: "447911123456" });
  expect(parse("00 1 (415) 555-0123")).toEqual({ ok: "14155550123" });
});

test("a trunk prefix written after the country code is not part of the number, where the country drops it", () => {
  // stored as 4402079460958 before: a number that does not exist, sent to all the same
  expect(parse("+44 (0)20 7946 0958")).toEqual({ ok: "442079460958" });
  expect(parse("+49 (0)30 1234567")).toEqual({ ok: "49301234567" });
  // Italy dials its 0 from abroad too: kept
  expect(parse("+39 06 1234 5678")).toEqual({ ok: "390612345678" });
  // what was right stays as it was
  for (const d of ["919800000001", "14155550123", "447911123456", "4915112345678"]) expect(parse(d)).toEqual({ ok: d });
});

test("a national number (leading 0, no country code) is refused saying what to write instead", () => {
  const r = parse("098000 00001");
  expect(r.error).toContain("starts with 0");
  expect(r.error).toContain("country code");
});

test("a phone sent as a JSON number or null is named as such, not as missing", () => {
  expect(parse(919800000001)).toEqual({ error: expect.stringContaining("must be a string") });
  expect(parse(null)).toEqual({ error: expect.stringContaining("must be a string") });
  expect(parse(undefined)).toEqual({ error: "is required" });
});

test("what is still refused: letters, a plus inside, too short, too long, invisible characters", () => {
  for (const bad of ["91980000000x", "+91+9800000001", "++919800000001", "+91 123", "1234567890123456", "+", "", "tel:+919800000001", "+91\u200b9800000001", "９１９８０００００００１"]) {
    expect({ bad, ok: phoneField.safeParse(bad).success }).toEqual({ bad, ok: false });
  }
});
