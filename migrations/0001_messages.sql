CREATE TABLE `contacts` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`phone` text NOT NULL,
	`name` text,
	`push_name` text,
	`tags` text DEFAULT '[]' NOT NULL,
	`opted_out` integer DEFAULT false NOT NULL,
	`last_inbound_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_phone_uq` ON `contacts` (`workspace_id`,`phone`);--> statement-breakpoint
CREATE INDEX `contacts_ws_created_idx` ON `contacts` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`session_id` text NOT NULL,
	`phone` text NOT NULL,
	`contact_id` text,
	`last_message_id` text,
	`last_message_at` integer NOT NULL,
	`unread_count` integer DEFAULT 0 NOT NULL,
	`last_read_at` integer,
	`assignee_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`contact_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`assignee_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `conversations_session_phone_uq` ON `conversations` (`workspace_id`,`session_id`,`phone`);--> statement-breakpoint
CREATE INDEX `conversations_ws_recent_idx` ON `conversations` (`workspace_id`,`last_message_at`,`id`);--> statement-breakpoint
CREATE INDEX `conversations_ws_assignee_idx` ON `conversations` (`workspace_id`,`assignee_id`,`last_message_at`);--> statement-breakpoint
CREATE TABLE `media` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`mime_type` text NOT NULL,
	`size` integer NOT NULL,
	`filename` text,
	`sha256` text NOT NULL,
	`source` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `media_ws_idx` ON `media` (`workspace_id`,`id`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`workspace_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`status_code` integer NOT NULL,
	`response` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `key`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `idempotency_expires_idx` ON `idempotency_keys` (`expires_at`);--> statement-breakpoint
CREATE TABLE `message_usage` (
	`workspace_id` text NOT NULL,
	`period` text NOT NULL,
	`outbound` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`workspace_id`, `period`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `messages` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`session_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`direction` text NOT NULL,
	`phone` text NOT NULL,
	`session_phone` text,
	`type` text NOT NULL,
	`body` text,
	`media_id` text,
	`status` text NOT NULL,
	`network_message_id` text,
	`sending_token` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`error_code` text,
	`error_message` text,
	`created_by` text,
	`created_at` integer NOT NULL,
	`sent_at` integer,
	`delivered_at` integer,
	`read_at` integer,
	`failed_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `messages_ws_id_idx` ON `messages` (`workspace_id`,`id`);--> statement-breakpoint
CREATE INDEX `messages_ws_session_idx` ON `messages` (`workspace_id`,`session_id`,`id`);--> statement-breakpoint
CREATE INDEX `messages_ws_phone_idx` ON `messages` (`workspace_id`,`phone`,`id`);--> statement-breakpoint
CREATE INDEX `messages_ws_conversation_idx` ON `messages` (`workspace_id`,`conversation_id`,`id`);--> statement-breakpoint
CREATE INDEX `messages_ws_status_idx` ON `messages` (`workspace_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `messages_network_idx` ON `messages` (`workspace_id`,`session_id`,`network_message_id`);--> statement-breakpoint
CREATE INDEX `messages_queue_idx` ON `messages` (`workspace_id`,`session_id`,`id`) WHERE status = 'queued';