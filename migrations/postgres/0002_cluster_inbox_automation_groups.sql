CREATE TABLE "automation_replies" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"automation_id" text NOT NULL,
	"phone" text NOT NULL,
	"inbound_message_id" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "automations" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"trigger_type" text NOT NULL,
	"trigger" text NOT NULL,
	"reply" text NOT NULL,
	"session_ids" text,
	"cooldown_minutes" bigint DEFAULT 60 NOT NULL,
	"is_active" bigint DEFAULT 1 NOT NULL,
	"created_by" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_groups" (
	"workspace_id" text NOT NULL,
	"session_id" text NOT NULL,
	"id" text NOT NULL,
	"name" text,
	"participants" text DEFAULT '[]' NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "chat_groups_workspace_id_session_id_id_pk" PRIMARY KEY("workspace_id","session_id","id")
);
--> statement-breakpoint
CREATE TABLE "cluster_events" (
	"seq" bigint PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"origin" text NOT NULL,
	"body" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "conversation_labels" (
	"workspace_id" text NOT NULL,
	"label" text NOT NULL,
	"conversation_id" text NOT NULL,
	CONSTRAINT "conversation_labels_workspace_id_label_conversation_id_pk" PRIMARY KEY("workspace_id","label","conversation_id")
);
--> statement-breakpoint
CREATE TABLE "conversation_notes" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"conversation_id" text NOT NULL,
	"author_id" text,
	"body" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "nodes" (
	"id" text PRIMARY KEY NOT NULL,
	"url" text,
	"version" text NOT NULL,
	"started_at" bigint NOT NULL,
	"last_seen_at" bigint NOT NULL,
	"stopped_at" bigint
);
--> statement-breakpoint
CREATE TABLE "quick_replies" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"shortcut" text NOT NULL,
	"body" text NOT NULL,
	"created_by" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_windows" (
	"key" text PRIMARY KEY NOT NULL,
	"start" bigint NOT NULL,
	"count" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "session_leases" (
	"session_id" text PRIMARY KEY NOT NULL,
	"node_id" text NOT NULL,
	"epoch" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"acquired_at" bigint NOT NULL
);
--> statement-breakpoint
DROP INDEX "conversations_ws_assignee_idx";--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "audience_filter" text;--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD COLUMN "groups" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "status" text DEFAULT 'open' NOT NULL;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "snoozed_until" bigint;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "labels" text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "last_direction" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "participant" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "participant_name" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "reply_to_id" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "automation_id" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "send_at" bigint;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "timezone" text DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE "automation_replies" ADD CONSTRAINT "automation_replies_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automations" ADD CONSTRAINT "automations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_groups" ADD CONSTRAINT "chat_groups_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_labels" ADD CONSTRAINT "conversation_labels_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_notes" ADD CONSTRAINT "conversation_notes_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_notes" ADD CONSTRAINT "conversation_notes_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_notes" ADD CONSTRAINT "conversation_notes_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quick_replies" ADD CONSTRAINT "quick_replies_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "session_leases" ADD CONSTRAINT "session_leases_session_id_chat_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."chat_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "automation_replies_inbound_idx" ON "automation_replies" USING btree ("workspace_id","inbound_message_id");--> statement-breakpoint
CREATE INDEX "automation_replies_cooldown_idx" ON "automation_replies" USING btree ("workspace_id","automation_id","phone","created_at");--> statement-breakpoint
CREATE INDEX "automations_ws_active_idx" ON "automations" USING btree ("workspace_id","is_active","id");--> statement-breakpoint
CREATE INDEX "chat_groups_session_idx" ON "chat_groups" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "cluster_events_created_idx" ON "cluster_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "conversation_labels_conversation_idx" ON "conversation_labels" USING btree ("conversation_id");--> statement-breakpoint
CREATE INDEX "conversation_notes_thread_idx" ON "conversation_notes" USING btree ("workspace_id","conversation_id","id");--> statement-breakpoint
CREATE INDEX "nodes_last_seen_idx" ON "nodes" USING btree ("last_seen_at");--> statement-breakpoint
CREATE UNIQUE INDEX "quick_replies_shortcut_uq" ON "quick_replies" USING btree ("workspace_id","shortcut");--> statement-breakpoint
CREATE INDEX "quick_replies_ws_idx" ON "quick_replies" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE INDEX "session_leases_node_idx" ON "session_leases" USING btree ("node_id");--> statement-breakpoint
CREATE INDEX "conversations_ws_status_idx" ON "conversations" USING btree ("workspace_id","status","last_message_at","id");--> statement-breakpoint
CREATE INDEX "conversations_ws_session_recent_idx" ON "conversations" USING btree ("workspace_id","session_id","last_message_at","id");--> statement-breakpoint
CREATE INDEX "conversations_ws_contact_idx" ON "conversations" USING btree ("workspace_id","contact_id");--> statement-breakpoint
CREATE INDEX "conversations_ws_needs_reply_idx" ON "conversations" USING btree ("workspace_id","last_message_at","id") WHERE last_direction = 'inbound';--> statement-breakpoint
CREATE INDEX "messages_ws_created_idx" ON "messages" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "messages_ws_participant_idx" ON "messages" USING btree ("workspace_id","participant") WHERE participant IS NOT NULL;--> statement-breakpoint
CREATE INDEX "conversations_ws_assignee_idx" ON "conversations" USING btree ("workspace_id","assignee_id","last_message_at","id");