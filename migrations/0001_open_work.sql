CREATE TABLE `health_probe` (
	`id` integer PRIMARY KEY NOT NULL,
	`checked_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `session_keys` (
	`session_id` text NOT NULL,
	`type` text NOT NULL,
	`id` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`session_id`, `type`, `id`),
	FOREIGN KEY (`session_id`) REFERENCES `chat_sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `messages` ADD `payload` text;--> statement-breakpoint
ALTER TABLE `chat_sessions` ADD `send_paused_until` integer;--> statement-breakpoint
ALTER TABLE `chat_sessions` ADD `send_pause_reason` text;