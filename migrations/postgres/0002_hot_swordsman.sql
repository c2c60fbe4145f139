CREATE TABLE "nodes" (
	"id" text PRIMARY KEY NOT NULL,
	"url" text,
	"version" text NOT NULL,
	"started_at" bigint NOT NULL,
	"last_seen_at" bigint NOT NULL,
	"stopped_at" bigint
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
ALTER TABLE "session_leases" ADD CONSTRAINT "session_leases_session_id_chat_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."chat_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "nodes_last_seen_idx" ON "nodes" USING btree ("last_seen_at");--> statement-breakpoint
CREATE INDEX "session_leases_node_idx" ON "session_leases" USING btree ("node_id");