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
ALTER TABLE "messages" ADD COLUMN "automation_id" text;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "timezone" text DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE "automation_replies" ADD CONSTRAINT "automation_replies_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automations" ADD CONSTRAINT "automations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "automation_replies_inbound_idx" ON "automation_replies" USING btree ("workspace_id","inbound_message_id");--> statement-breakpoint
CREATE INDEX "automation_replies_cooldown_idx" ON "automation_replies" USING btree ("workspace_id","automation_id","phone","created_at");--> statement-breakpoint
CREATE INDEX "automations_ws_active_idx" ON "automations" USING btree ("workspace_id","is_active","id");