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
--> statement-breakpoint
CREATE TABLE `automation_replies` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`automation_id` text NOT NULL,
	`phone` text NOT NULL,
	`inbound_message_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `automation_replies_inbound_idx` ON `automation_replies` (`workspace_id`,`inbound_message_id`);--> statement-breakpoint
CREATE INDEX `automation_replies_cooldown_idx` ON `automation_replies` (`workspace_id`,`automation_id`,`phone`,`created_at`);--> statement-breakpoint
CREATE TABLE `automations` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`trigger_type` text NOT NULL,
	`trigger` text NOT NULL,
	`reply` text NOT NULL,
	`session_ids` text,
	`cooldown_minutes` integer DEFAULT 60 NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `automations_ws_active_idx` ON `automations` (`workspace_id`,`is_active`,`id`);--> statement-breakpoint
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
CREATE TABLE `quick_replies` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`shortcut` text NOT NULL,
	`body` text NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `quick_replies_shortcut_uq` ON `quick_replies` (`workspace_id`,`shortcut`);--> statement-breakpoint
CREATE INDEX `quick_replies_ws_idx` ON `quick_replies` (`workspace_id`,`id`);--> statement-breakpoint
CREATE TABLE `session_leases` (
	`session_id` text PRIMARY KEY NOT NULL,
	`node_id` text NOT NULL,
	`epoch` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`acquired_at` integer NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `chat_sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `session_leases_node_idx` ON `session_leases` (`node_id`);--> statement-breakpoint
DROP INDEX `conversations_ws_assignee_idx`;--> statement-breakpoint
ALTER TABLE `conversations` ADD `status` text DEFAULT 'open' NOT NULL;--> statement-breakpoint
ALTER TABLE `conversations` ADD `snoozed_until` integer;--> statement-breakpoint
ALTER TABLE `conversations` ADD `labels` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `conversations` ADD `last_direction` text;--> statement-breakpoint
CREATE INDEX `conversations_ws_status_idx` ON `conversations` (`workspace_id`,`status`,`last_message_at`,`id`);--> statement-breakpoint
CREATE INDEX `conversations_ws_session_recent_idx` ON `conversations` (`workspace_id`,`session_id`,`last_message_at`,`id`);--> statement-breakpoint
CREATE INDEX `conversations_ws_contact_idx` ON `conversations` (`workspace_id`,`contact_id`);--> statement-breakpoint
CREATE INDEX `conversations_ws_needs_reply_idx` ON `conversations` (`workspace_id`,`last_message_at`,`id`) WHERE last_direction = 'inbound';--> statement-breakpoint
CREATE INDEX `conversations_ws_assignee_idx` ON `conversations` (`workspace_id`,`assignee_id`,`last_message_at`,`id`);--> statement-breakpoint
ALTER TABLE `campaigns` ADD `audience_filter` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `participant` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `participant_name` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `reply_to_id` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `automation_id` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `send_at` integer;--> statement-breakpoint
CREATE INDEX `messages_ws_created_idx` ON `messages` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `messages_ws_participant_idx` ON `messages` (`workspace_id`,`participant`) WHERE participant IS NOT NULL;--> statement-breakpoint
ALTER TABLE `chat_sessions` ADD `groups` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `timezone` text DEFAULT 'UTC' NOT NULL;