/**
 * Every table as PostgreSQL sees it, for drizzle-kit (`drizzle.postgres.config.ts`): the twins
 * of the tables declared once in the modules' table.ts files (see pg-schema.ts). A new
 * table.ts table gets its line here.
 */
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { PgTableWithColumns } from "drizzle-orm/pg-core";
import { pgTwin } from "../db/pg-schema.ts";
import { users } from "../modules/users/table.ts";
import { workspaces } from "../modules/workspaces/table.ts";
import { billingEvents, billingOrders, invoices, plans, usageCounters } from "../modules/billing/table.ts";
import { captchas, loginChallenges, otpCodes, passwordResets, refreshTokens } from "../modules/auth/table.ts";
import { invitationMails, invitations } from "../modules/team/table.ts";
import { segments } from "../modules/segments/table.ts";
import { media } from "../modules/media/table.ts";
import { apiKeys } from "../modules/apikeys/table.ts";
import { contactAttributes, contactImportErrors, contactImports, contactTags, contacts } from "../modules/contacts/table.ts";
import { chatSessions, sessionKeys } from "../modules/sessions/table.ts";
import { healthProbe } from "../modules/health/table.ts";
import { idempotencyKeys, messageUsage, messages } from "../modules/messages/table.ts";
import { webhookDeliveries, webhooks } from "../modules/webhooks/table.ts";
import { conversations } from "../modules/inbox/table.ts";
import { campaignAudience, campaignRecipients, campaignSendDays, campaigns } from "../modules/campaigns/table.ts";
import { jobs } from "../jobs/table.ts";
import { notifications } from "../notify/table.ts";
import { numberChecks } from "../modules/numbers/table.ts";
import { instanceSecrets } from "../db/table.ts";
import { clusterEvents } from "../events/table.ts";
import { rateWindows } from "../limits/table.ts";

const twins = new Map<SQLiteTable, PgTableWithColumns<any>>();
const twin = (t: SQLiteTable) => pgTwin(t, twins);

export const pgUsers = twin(users);
export const pgWorkspaces = twin(workspaces);
export const pgPlans = twin(plans);
export const pgCaptchas = twin(captchas);
export const pgOtpCodes = twin(otpCodes);
export const pgLoginChallenges = twin(loginChallenges);
export const pgRefreshTokens = twin(refreshTokens);
export const pgPasswordResets = twin(passwordResets);
export const pgInvitations = twin(invitations);
export const pgInvitationMails = twin(invitationMails);
export const pgSegments = twin(segments);
export const pgMedia = twin(media);
export const pgApiKeys = twin(apiKeys);
export const pgContacts = twin(contacts);
export const pgContactTags = twin(contactTags);
export const pgContactAttributes = twin(contactAttributes);
export const pgContactImports = twin(contactImports);
export const pgContactImportErrors = twin(contactImportErrors);
export const pgBillingOrders = twin(billingOrders);
export const pgInvoices = twin(invoices);
export const pgBillingEvents = twin(billingEvents);
export const pgUsageCounters = twin(usageCounters);
export const pgChatSessions = twin(chatSessions);
export const pgSessionKeys = twin(sessionKeys);
export const pgHealthProbe = twin(healthProbe);
export const pgMessages = twin(messages);
export const pgMessageUsage = twin(messageUsage);
export const pgIdempotencyKeys = twin(idempotencyKeys);
export const pgWebhooks = twin(webhooks);
export const pgWebhookDeliveries = twin(webhookDeliveries);
export const pgConversations = twin(conversations);
export const pgCampaigns = twin(campaigns);
export const pgCampaignRecipients = twin(campaignRecipients);
export const pgCampaignSendDays = twin(campaignSendDays);
export const pgCampaignAudience = twin(campaignAudience);
export const pgJobs = twin(jobs);
export const pgNotifications = twin(notifications);
export const pgNumberChecks = twin(numberChecks);
export const pgInstanceSecrets = twin(instanceSecrets);
export const pgClusterEvents = twin(clusterEvents);
export const pgRateWindows = twin(rateWindows);
