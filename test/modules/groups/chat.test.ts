import { expect, test } from "bun:test";
import { isGroupChat } from "../../../src/modules/groups/chat.ts";

test("isGroupChat tells a group from a person by address, row or event data", () => {
  expect(isGroupChat("120363012345678901@g.us")).toBe(true);
  expect(isGroupChat("919812345678-1612345678@g.us")).toBe(true);
  expect(isGroupChat("919812345678")).toBe(false);
  expect(isGroupChat("12345678901234@lid")).toBe(false);
  expect(isGroupChat("status@broadcast")).toBe(false);
  expect(isGroupChat({ phone: "120363012345678901@g.us" })).toBe(true);
  expect(isGroupChat({ phone: "919812345678" })).toBe(false);
  expect(isGroupChat({ from: "919812345678", groupId: "120363012345678901@g.us" } as { groupId: string })).toBe(true);
  expect(isGroupChat({ from: "919812345678" } as {})).toBe(false);
  expect(isGroupChat(null)).toBe(false);
});
