// What a viewer sees (docs/team-and-billing.md): everything to read, no control to change anything (docs/dashboard.md).
import { expect } from "bun:test";
import type { Page } from "playwright-core";

/** Walks a signed-in viewer (375 px wide, so through the menu) over the screens with management controls. */
export async function expectViewerView(page: Page, base: string) {
  await page.getByRole("link", { name: /\+919833300003/ }).click();
  await page.locator(".msg", { hasText: "Great, thanks!" }).waitFor();
  expect(await page.getByLabel("Reply").count()).toBe(0);
  expect(await page.getByLabel("Assigned to").count()).toBe(0);
  await page.getByRole("button", { name: "Menu" }).click();
  expect(await page.getByRole("link", { name: "API keys" }).count()).toBe(0);
  await page.getByRole("link", { name: "Sessions" }).click();
  await page.getByText("as +919822200002").waitFor();
  expect(await page.getByRole("button", { name: /Create session|Connect|Disconnect|Delete/ }).count()).toBe(0);
  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("link", { name: "Webhooks" }).click();
  await page.getByRole("link", { name: "Orders system" }).waitFor();
  expect(await page.getByText("Add a webhook").count()).toBe(0);
  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("link", { name: "Team" }).click();
  await page.getByRole("cell", { name: "Vikram Viewer" }).waitFor();
  expect(await page.getByText("Invite a member").count()).toBe(0);
  expect(await page.getByRole("button", { name: /Remove/ }).count()).toBe(0);
  // a typed address of a management screen explains instead of offering a form (reload: the tab keeps its login)
  await page.goto(`${base}/app/api-keys`);
  await page.getByRole("heading", { name: "Not available to your role" }).waitFor();
  expect(await page.getByText("Only owners and admins may manage API keys; you are a viewer.").count()).toBe(1);
  expect(await page.getByLabel("Key name").count()).toBe(0);
}
