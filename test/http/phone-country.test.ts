import { afterEach, expect, test } from "bun:test";
import { loadConfig } from "../../src/config.ts";
import { phoneField, setDefaultCountry } from "../../src/http/phone.ts";
import { createTestApp } from "../helpers/app.ts";
import { createWorkspace } from "../helpers/fixtures.ts";

afterEach(() => setDefaultCountry(undefined));

const messageOf = (raw: string) => phoneField.safeParse(raw).error?.issues[0]?.message;

test("without a default country, a national number is refused saying what it was read as, never stored as another country's", () => {
  setDefaultCountry(undefined);
  // the number from the report: 98000 00001 read as +98 (Iran) used to be stored as 980000001
  const r = phoneField.safeParse("98000 00001");
  expect(r.success).toBe(false);
  expect(messageOf("98000 00001")).toContain("understood as +98");
  expect(messageOf("98000 00001")).toContain("Iran");
  expect(messageOf("98000 00001")).toContain("country code");
});

test("with a default country, numbers without a country code are that country's; numbers with one are kept", () => {
  setDefaultCountry("IN");
  for (const [raw, want] of [
    ["98000 00001", "919800000001"],
    ["098000 00001", "919800000001"],
    ["+91 98000 00001", "919800000001"],
    ["919800000001", "919800000001"],
    ["+44 7911 123456", "447911123456"],
    ["0044 7911 123456", "447911123456"],
    ["14155550123", "14155550123"],
  ]) expect({ raw, out: phoneField.safeParse(raw).data }).toEqual({ raw, out: want });
  setDefaultCountry("GB");
  expect(phoneField.safeParse("07911 123456").data).toBe("447911123456");
});

test("a number of a possible length that is not valid for its country is refused with what was understood", () => {
  setDefaultCountry(undefined);
  // +44 1 ... : a possible length for the United Kingdom, but no such number
  const msg = messageOf("+44 1000 000000");
  expect(msg).toContain("not a valid number");
  expect(msg).toContain("+44");
  expect(msg).toContain("United Kingdom");
});

test("the setting: flag or PARLEY_DEFAULT_COUNTRY, two letters of a real country, unset by default", () => {
  expect(loadConfig({}, {}).defaultCountry).toBeUndefined();
  expect(loadConfig({}, { PARLEY_DEFAULT_COUNTRY: "in" }).defaultCountry).toBe("IN");
  expect(loadConfig({ defaultCountry: "GB" }, { PARLEY_DEFAULT_COUNTRY: "IN" }).defaultCountry).toBe("GB");
  expect(() => loadConfig({}, { PARLEY_DEFAULT_COUNTRY: "India" })).toThrow(/defaultCountry.*two-letter/);
  expect(() => loadConfig({}, { PARLEY_DEFAULT_COUNTRY: "ZZ" })).toThrow(/ZZ is not a country/);
});

test("a server with a default country stores a contact typed without its country code under that country", async () => {
  const t = await createTestApp({ config: { defaultCountry: "IN" } });
  try {
    const ws = await createWorkspace(t);
    const r = await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: "98000 00001" } });
    expect({ status: r.status, phone: r.body.data?.phone }).toEqual({ status: 201, phone: "919800000001" });
  } finally {
    await t.close();
  }
  const plain = await createTestApp();
  try {
    const ws = await createWorkspace(plain);
    const r = await plain.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: "98000 00001" } });
    expect(r.status).toBe(400);
    expect(r.body.errors.phone).toContain("understood as +98");
  } finally {
    await plain.close();
  }
});
