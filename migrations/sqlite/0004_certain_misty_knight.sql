CREATE TABLE `nodes` (
	`id` text PRIMARY KEY NOT NULL,
	`url` text,
	`version` text NOT NULL,
	`started_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`stopped_at` integer
);
--> statement-breakpoint
CREATE INDEX `nodes_last_seen_idx` ON `nodes` (`last_seen_at`);--> statement-breakpoint
CREATE TABLE `session_leases` (
	`session_id` text PRIMARY KEY NOT NULL,
	`node_id` text NOT NULL,
	`epoch` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`acquired_at` integer NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `chat_sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `session_leases_node_idx` ON `session_leases` (`node_id`);