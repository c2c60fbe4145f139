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
CREATE INDEX `quick_replies_ws_idx` ON `quick_replies` (`workspace_id`,`id`);