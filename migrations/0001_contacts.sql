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
ALTER TABLE `contacts` ADD `attributes` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `contacts` ADD `opted_out_at` integer;--> statement-breakpoint
CREATE INDEX `contacts_ws_optin_idx` ON `contacts` (`workspace_id`,`opted_out`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_ws_inbound_idx` ON `contacts` (`workspace_id`,`opted_out`,`last_inbound_at`);--> statement-breakpoint
ALTER TABLE `workspaces` ADD `opt_out_keywords` text DEFAULT '["STOP","UNSUBSCRIBE"]' NOT NULL;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `opt_in_keywords` text DEFAULT '["START"]' NOT NULL;