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
ALTER TABLE `messages` ADD `automation_id` text;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `timezone` text DEFAULT 'UTC' NOT NULL;