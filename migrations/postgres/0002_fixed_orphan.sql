CREATE TABLE "cluster_events" (
	"seq" bigint PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"origin" text NOT NULL,
	"body" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_windows" (
	"key" text PRIMARY KEY NOT NULL,
	"start" bigint NOT NULL,
	"count" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "cluster_events_created_idx" ON "cluster_events" USING btree ("created_at");