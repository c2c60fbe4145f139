CREATE TABLE `conversation_labels` (
	`workspace_id` text NOT NULL,
	`label` text NOT NULL,
	`conversation_id` text NOT NULL,
	PRIMARY KEY(`workspace_id`, `label`, `conversation_id`),
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `conversation_labels_conversation_idx` ON `conversation_labels` (`conversation_id`);--> statement-breakpoint
CREATE TABLE `conversation_notes` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`author_id` text,
	`body` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `conversation_notes_thread_idx` ON `conversation_notes` (`workspace_id`,`conversation_id`,`id`);--> statement-breakpoint
DROP INDEX `conversations_ws_assignee_idx`;--> statement-breakpoint
ALTER TABLE `conversations` ADD `status` text DEFAULT 'open' NOT NULL;--> statement-breakpoint
ALTER TABLE `conversations` ADD `snoozed_until` integer;--> statement-breakpoint
ALTER TABLE `conversations` ADD `labels` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `conversations` ADD `last_direction` text;--> statement-breakpoint
CREATE INDEX `conversations_ws_status_idx` ON `conversations` (`workspace_id`,`status`,`last_message_at`,`id`);--> statement-breakpoint
CREATE INDEX `conversations_ws_session_recent_idx` ON `conversations` (`workspace_id`,`session_id`,`last_message_at`,`id`);--> statement-breakpoint
CREATE INDEX `conversations_ws_needs_reply_idx` ON `conversations` (`workspace_id`,`last_message_at`,`id`) WHERE last_direction = 'inbound';--> statement-breakpoint
CREATE INDEX `conversations_ws_assignee_idx` ON `conversations` (`workspace_id`,`assignee_id`,`last_message_at`,`id`);