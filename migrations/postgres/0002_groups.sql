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
ALTER TABLE "chat_sessions" ADD COLUMN "groups" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "participant" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "participant_name" text;--> statement-breakpoint
ALTER TABLE "chat_groups" ADD CONSTRAINT "chat_groups_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_groups_session_idx" ON "chat_groups" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "messages_ws_participant_idx" ON "messages" USING btree ("workspace_id","participant") WHERE participant IS NOT NULL;