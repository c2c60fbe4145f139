CREATE TABLE `chat_groups` (
	`workspace_id` text NOT NULL,
	`session_id` text NOT NULL,
	`id` text NOT NULL,
	`name` text,
	`participants` text DEFAULT '[]' NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `session_id`, `id`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `chat_groups_session_idx` ON `chat_groups` (`session_id`);--> statement-breakpoint
ALTER TABLE `messages` ADD `participant` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `participant_name` text;--> statement-breakpoint
CREATE INDEX `messages_ws_participant_idx` ON `messages` (`workspace_id`,`participant`) WHERE participant IS NOT NULL;--> statement-breakpoint
ALTER TABLE `chat_sessions` ADD `groups` integer DEFAULT false NOT NULL;