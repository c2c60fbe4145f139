import { expect, test } from "bun:test";
import { renderBody } from "../../../src/modules/campaigns/variables.ts";

const contact = (attributes: Record<string, string>) => ({ name: "Asha", pushName: null, phone: "919800000001", attributes });

test("an attribute key in another case finds the contact's attribute instead of falling back to the default", () => {
  // an import's `City` column and a body written with {{attributes.city}}
  expect(renderBody("See you in {{attributes.city|town}}", contact({ City: "Pune" }))).toBe("See you in Pune");
  expect(renderBody("See you in {{attributes.CITY|town}}", contact({ city: "Pune" }))).toBe("See you in Pune");
  // the exact key wins when both exist
  expect(renderBody("{{attributes.city}}", contact({ City: "Pune", city: "Mumbai" }))).toBe("Mumbai");
  // a contact without it still gets the default
  expect(renderBody("See you in {{attributes.city|town}}", contact({ plan: "gold" }))).toBe("See you in town");
});
