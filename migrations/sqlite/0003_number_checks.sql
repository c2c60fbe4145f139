CREATE TABLE `number_checks` (
	`workspace_id` text NOT NULL,
	`phone` text NOT NULL,
	`on_network` integer NOT NULL,
	`checked_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `phone`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `number_checks_expires_idx` ON `number_checks` (`expires_at`);