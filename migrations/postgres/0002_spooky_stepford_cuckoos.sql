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
DROP INDEX "conversations_ws_assignee_idx";--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "status" text DEFAULT 'open' NOT NULL;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "snoozed_until" bigint;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "labels" text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "last_direction" text;--> statement-breakpoint
ALTER TABLE "conversation_labels" ADD CONSTRAINT "conversation_labels_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_notes" ADD CONSTRAINT "conversation_notes_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_notes" ADD CONSTRAINT "conversation_notes_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_notes" ADD CONSTRAINT "conversation_notes_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "conversation_labels_conversation_idx" ON "conversation_labels" USING btree ("conversation_id");--> statement-breakpoint
CREATE INDEX "conversation_notes_thread_idx" ON "conversation_notes" USING btree ("workspace_id","conversation_id","id");--> statement-breakpoint
CREATE INDEX "conversations_ws_status_idx" ON "conversations" USING btree ("workspace_id","status","last_message_at","id");--> statement-breakpoint
CREATE INDEX "conversations_ws_session_recent_idx" ON "conversations" USING btree ("workspace_id","session_id","last_message_at","id");--> statement-breakpoint
CREATE INDEX "conversations_ws_needs_reply_idx" ON "conversations" USING btree ("workspace_id","last_message_at","id") WHERE last_direction = 'inbound';--> statement-breakpoint
CREATE INDEX "conversations_ws_assignee_idx" ON "conversations" USING btree ("workspace_id","assignee_id","last_message_at","id");