CREATE TABLE `campaign_audience` (
	`campaign_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`phone` text NOT NULL,
	PRIMARY KEY(`campaign_id`, `contact_id`),
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `campaign_recipients` (
	`id` text PRIMARY KEY NOT NULL,
	`campaign_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`contact_id` text,
	`phone` text NOT NULL,
	`status` text NOT NULL,
	`skipped_reason` text,
	`message_id` text,
	`session_id` text,
	`error_code` text,
	`error_message` text,
	`sent_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `campaign_recipients_status_idx` ON `campaign_recipients` (`campaign_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `campaign_recipients_message_idx` ON `campaign_recipients` (`message_id`) WHERE message_id IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `campaign_recipients_phone_uq` ON `campaign_recipients` (`campaign_id`,`phone`) WHERE skipped_reason IS NULL OR skipped_reason <> 'duplicate';--> statement-breakpoint
CREATE TABLE `campaign_send_days` (
	`workspace_id` text NOT NULL,
	`session_id` text NOT NULL,
	`day` text NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`session_id`, `day`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `campaigns` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`paused_reason` text,
	`session_ids` text NOT NULL,
	`message` text NOT NULL,
	`audience` text NOT NULL,
	`schedule` text,
	`pacing` text NOT NULL,
	`media_id` text,
	`total` integer DEFAULT 0 NOT NULL,
	`pending` integer DEFAULT 0 NOT NULL,
	`sent` integer DEFAULT 0 NOT NULL,
	`delivered` integer DEFAULT 0 NOT NULL,
	`read` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`skipped` integer DEFAULT 0 NOT NULL,
	`materialize_cursor` text,
	`materialized_at` integer,
	`pacing_state` text DEFAULT '{}' NOT NULL,
	`turn` integer DEFAULT 0 NOT NULL,
	`recent_outcomes` text DEFAULT '' NOT NULL,
	`waiting_until` integer,
	`progress_at` integer,
	`progress_dirty` integer DEFAULT false NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`started_at` integer,
	`completed_at` integer,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `campaigns_ws_idx` ON `campaigns` (`workspace_id`,`id`);--> statement-breakpoint
CREATE INDEX `campaigns_status_idx` ON `campaigns` (`status`);--> statement-breakpoint
CREATE TABLE `contact_attributes` (
	`workspace_id` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`contact_id` text NOT NULL,
	PRIMARY KEY(`workspace_id`, `key`, `value`, `contact_id`),
	FOREIGN KEY (`contact_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `contact_attributes_contact_idx` ON `contact_attributes` (`contact_id`);--> statement-breakpoint
CREATE TABLE `contact_import_errors` (
	`import_id` text NOT NULL,
	`row` integer NOT NULL,
	`message` text NOT NULL,
	PRIMARY KEY(`import_id`, `row`),
	FOREIGN KEY (`import_id`) REFERENCES `contact_imports`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `contact_imports` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`status` text NOT NULL,
	`file_path` text NOT NULL,
	`filename` text,
	`total` integer,
	`processed` integer DEFAULT 0 NOT NULL,
	`created` integer DEFAULT 0 NOT NULL,
	`updated` integer DEFAULT 0 NOT NULL,
	`rejected` integer DEFAULT 0 NOT NULL,
	`error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`completed_at` integer,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `contact_imports_ws_idx` ON `contact_imports` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `contact_tags` (
	`workspace_id` text NOT NULL,
	`tag` text NOT NULL,
	`contact_id` text NOT NULL,
	PRIMARY KEY(`workspace_id`, `tag`, `contact_id`),
	FOREIGN KEY (`contact_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `contact_tags_contact_idx` ON `contact_tags` (`contact_id`);--> statement-breakpoint
CREATE TABLE `health_probe` (
	`id` integer PRIMARY KEY NOT NULL,
	`checked_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `segments` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`filter` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `segments_name_uq` ON `segments` (`workspace_id`,`name`);--> statement-breakpoint
CREATE INDEX `segments_ws_created_idx` ON `segments` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `session_keys` (
	`session_id` text NOT NULL,
	`type` text NOT NULL,
	`id` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`session_id`, `type`, `id`),
	FOREIGN KEY (`session_id`) REFERENCES `chat_sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `contacts` ADD `attributes` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `contacts` ADD `opted_out_at` integer;--> statement-breakpoint
CREATE INDEX `contacts_ws_optin_idx` ON `contacts` (`workspace_id`,`opted_out`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_ws_inbound_idx` ON `contacts` (`workspace_id`,`opted_out`,`last_inbound_at`);--> statement-breakpoint
ALTER TABLE `messages` ADD `payload` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `campaign_id` text;--> statement-breakpoint
CREATE INDEX `messages_ws_campaign_idx` ON `messages` (`workspace_id`,`campaign_id`,`id`) WHERE campaign_id IS NOT NULL;--> statement-breakpoint
ALTER TABLE `chat_sessions` ADD `send_paused_until` integer;--> statement-breakpoint
ALTER TABLE `chat_sessions` ADD `send_pause_reason` text;--> statement-breakpoint
ALTER TABLE `chat_sessions` ADD `first_connected_at` integer;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `opt_out_keywords` text DEFAULT '["STOP","UNSUBSCRIBE"]' NOT NULL;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `opt_in_keywords` text DEFAULT '["START"]' NOT NULL;