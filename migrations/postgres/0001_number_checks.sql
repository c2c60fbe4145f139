CREATE TABLE "number_checks" (
	"workspace_id" text NOT NULL,
	"phone" text NOT NULL,
	"on_network" bigint NOT NULL,
	"checked_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	CONSTRAINT "number_checks_workspace_id_phone_pk" PRIMARY KEY("workspace_id","phone")
);
--> statement-breakpoint
ALTER TABLE "number_checks" ADD CONSTRAINT "number_checks_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "number_checks_expires_idx" ON "number_checks" USING btree ("expires_at");