CREATE TABLE `cluster_events` (
	`seq` integer PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`origin` text NOT NULL,
	`body` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `cluster_events_created_idx` ON `cluster_events` (`created_at`);--> statement-breakpoint
CREATE TABLE `rate_windows` (
	`key` text PRIMARY KEY NOT NULL,
	`start` integer NOT NULL,
	`count` integer NOT NULL
);
