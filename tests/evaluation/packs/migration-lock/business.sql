-- migration-lock business data: schema migration history, deploy history, subscription renewal attempts
-- and invoices of 2026-11-18 13:30-14:45 UTC. Times are UTC. SQLite- and MariaDB-compatible.

CREATE TABLE schema_migrations (
  id INTEGER PRIMARY KEY,
  database_name VARCHAR(32) NOT NULL,
  version VARCHAR(16) NOT NULL,
  description VARCHAR(128) NOT NULL,
  script VARCHAR(128) NOT NULL,
  change_id VARCHAR(16) NOT NULL,
  executed_by VARCHAR(64) NOT NULL,
  started_at DATETIME NOT NULL,
  applied_at DATETIME,
  execution_ms INTEGER,
  status VARCHAR(16) NOT NULL
);

INSERT INTO schema_migrations (id, database_name, version, description, script, change_id, executed_by, started_at, applied_at, execution_ms, status) VALUES
  (1, 'billing', '84', 'invoice lines discount column', 'V84__invoice_lines_discount.sql', 'CHG-52411', 'billing-migrate', '2026-10-27 06:10:04', '2026-10-27 06:10:06', 1802, 'SUCCESS'),
  (2, 'accounts', '129', 'add marketing consent timestamps', 'V129__consent_timestamps.sql', 'CHG-52530', 'accounts-migrate', '2026-11-03 06:20:11', '2026-11-03 06:20:12', 640, 'SUCCESS'),
  (3, 'billing', '85', 'credit notes table', 'V85__credit_notes.sql', 'CHG-52602', 'billing-migrate', '2026-11-05 06:05:40', '2026-11-05 06:05:41', 211, 'SUCCESS'),
  (4, 'billing', '86', 'index invoices by due date', 'V86__invoices_due_date_idx.sql', 'CHG-52688', 'billing-migrate', '2026-11-12 05:58:02', '2026-11-12 06:04:51', 409122, 'SUCCESS'),
  (5, 'subscriptions', '41', 'reminder schedule per plan', 'V41__reminder_schedule.sql', 'CHG-52790', 'subscriptions-migrate', '2026-11-17 16:20:33', '2026-11-17 16:20:34', 388, 'SUCCESS'),
  (6, 'accounts', '130', 'drop legacy sso table', 'V130__drop_legacy_sso.sql', 'CHG-52809', 'accounts-migrate', '2026-11-18 12:55:10', '2026-11-18 12:55:11', 97, 'SUCCESS'),
  (7, 'billing', '87', 'add invoices tax region', 'V87__invoices_tax_region.sql', 'CHG-52817', 'billing-migrate', '2026-11-18 14:03:07', NULL, NULL, 'RUNNING');


CREATE TABLE deployments (
  id INTEGER PRIMARY KEY,
  service VARCHAR(64) NOT NULL,
  version VARCHAR(32) NOT NULL,
  previous_version VARCHAR(32),
  deployed_at DATETIME NOT NULL,
  deployed_by VARCHAR(64) NOT NULL,
  change_id VARCHAR(16) NOT NULL,
  description VARCHAR(255),
  status VARCHAR(16) NOT NULL
);

INSERT INTO deployments (id, service, version, previous_version, deployed_at, deployed_by, change_id, description, status) VALUES
  (1, 'billing-service', '7.2.4', '7.2.3', '2026-11-10 10:02:51', 'deploy-bot', 'CHG-52571', 'PSP webhook idempotency keys', 'SUCCEEDED'),
  (2, 'api-gateway', '2.8.0', '2.7.6', '2026-11-13 09:40:12', 'deploy-bot', 'CHG-52702', 'HTTP/2 to upstreams', 'SUCCEEDED'),
  (3, 'billing-service', '7.3.0', '7.2.4', '2026-11-17 10:12:19', 'deploy-bot', 'CHG-52781', 'Tax region support prepared (column read behind flag billing.tax-region)', 'SUCCEEDED'),
  (4, 'account-service', '3.30.1', '3.30.0', '2026-11-18 12:57:40', 'deploy-bot', 'CHG-52810', 'Remove legacy SSO code', 'SUCCEEDED'),
  (5, 'subscription-service', '4.12.0', '4.11.3', '2026-11-18 13:38:20', 'deploy-bot', 'CHG-52814', 'Renewal reminders 3 days before renewal', 'SUCCEEDED');


CREATE TABLE renewal_attempts (
  id INTEGER PRIMARY KEY,
  subscription_id VARCHAR(16) NOT NULL,
  plan VARCHAR(32) NOT NULL,
  amount DECIMAL(10,2) NOT NULL,
  attempted_at DATETIME NOT NULL,
  status VARCHAR(16) NOT NULL,
  error_code VARCHAR(32),
  latency_ms INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  invoice_id VARCHAR(20)
);

INSERT INTO renewal_attempts (id, subscription_id, plan, amount, attempted_at, status, error_code, latency_ms, attempts, invoice_id) VALUES
  (1, 'SUB-418200', 'starter-monthly', 9.0, '2026-11-18 13:30:57', 'RENEWED', NULL, 71, 1, 'INV-7730412'),
  (2, 'SUB-418214', 'pro-monthly', 29.0, '2026-11-18 13:31:34', 'RENEWED', NULL, 148, 1, 'INV-7730414'),
  (3, 'SUB-418221', 'pro-monthly', 29.0, '2026-11-18 13:31:37', 'RENEWED', NULL, 89, 1, 'INV-7730415'),
  (4, 'SUB-418228', 'pro-monthly', 29.0, '2026-11-18 13:31:48', 'RENEWED', NULL, 132, 1, 'INV-7730416'),
  (5, 'SUB-418207', 'pro-monthly', 29.0, '2026-11-18 13:31:57', 'RENEWED', NULL, 128, 1, 'INV-7730413'),
  (6, 'SUB-418235', 'pro-monthly', 29.0, '2026-11-18 13:32:39', 'RENEWED', NULL, 136, 1, 'INV-7730417'),
  (7, 'SUB-418242', 'starter-monthly', 9.0, '2026-11-18 13:32:53', 'RENEWED', NULL, 168, 1, 'INV-7730418'),
  (8, 'SUB-418249', 'pro-monthly', 29.0, '2026-11-18 13:33:27', 'RENEWED', NULL, 129, 1, 'INV-7730419'),
  (9, 'SUB-418256', 'pro-yearly', 290.0, '2026-11-18 13:35:45', 'RENEWED', NULL, 155, 1, 'INV-7730420'),
  (10, 'SUB-418263', 'starter-monthly', 9.0, '2026-11-18 13:39:06', 'RENEWED', NULL, 113, 1, 'INV-7730421'),
  (11, 'SUB-418270', 'team-monthly', 79.0, '2026-11-18 13:39:46', 'RENEWED', NULL, 161, 1, 'INV-7730422'),
  (12, 'SUB-418298', 'team-monthly', 79.0, '2026-11-18 13:41:26', 'RENEWED', NULL, 164, 1, 'INV-7730426'),
  (13, 'SUB-418277', 'pro-monthly', 29.0, '2026-11-18 13:41:31', 'RENEWED', NULL, 94, 1, 'INV-7730423'),
  (14, 'SUB-418291', 'team-monthly', 79.0, '2026-11-18 13:41:44', 'RENEWED', NULL, 104, 1, 'INV-7730425'),
  (15, 'SUB-418284', 'team-yearly', 790.0, '2026-11-18 13:41:50', 'RENEWED', NULL, 149, 1, 'INV-7730424'),
  (16, 'SUB-418305', 'team-yearly', 790.0, '2026-11-18 13:42:28', 'RENEWED', NULL, 104, 1, 'INV-7730427'),
  (17, 'SUB-418312', 'pro-monthly', 29.0, '2026-11-18 13:43:28', 'RENEWED', NULL, 132, 1, 'INV-7730428'),
  (18, 'SUB-418319', 'pro-monthly', 29.0, '2026-11-18 13:44:55', 'RENEWED', NULL, 113, 1, 'INV-7730429'),
  (19, 'SUB-418333', 'team-monthly', 79.0, '2026-11-18 13:46:20', 'RENEWED', NULL, 184, 1, 'INV-7730431'),
  (20, 'SUB-418326', 'pro-monthly', 29.0, '2026-11-18 13:46:27', 'RENEWED', NULL, 155, 1, 'INV-7730430'),
  (21, 'SUB-418340', 'team-yearly', 790.0, '2026-11-18 13:47:02', 'RENEWED', NULL, 131, 1, 'INV-7730432'),
  (22, 'SUB-418347', 'starter-monthly', 9.0, '2026-11-18 13:47:23', 'RENEWED', NULL, 174, 1, 'INV-7730433'),
  (23, 'SUB-418354', 'pro-monthly', 29.0, '2026-11-18 13:48:17', 'RENEWED', NULL, 117, 1, 'INV-7730434'),
  (24, 'SUB-418361', 'team-monthly', 79.0, '2026-11-18 13:50:06', 'RENEWED', NULL, 117, 1, 'INV-7730435'),
  (25, 'SUB-418368', 'pro-monthly', 29.0, '2026-11-18 13:51:11', 'RENEWED', NULL, 177, 1, 'INV-7730436');

INSERT INTO renewal_attempts (id, subscription_id, plan, amount, attempted_at, status, error_code, latency_ms, attempts, invoice_id) VALUES
  (26, 'SUB-418375', 'team-yearly', 790.0, '2026-11-18 13:52:02', 'RENEWED', NULL, 142, 1, 'INV-7730437'),
  (27, 'SUB-418382', 'team-monthly', 79.0, '2026-11-18 13:52:24', 'RENEWED', NULL, 188, 1, 'INV-7730438'),
  (28, 'SUB-418389', 'team-yearly', 790.0, '2026-11-18 13:52:47', 'RENEWED', NULL, 87, 1, 'INV-7730439'),
  (29, 'SUB-418396', 'starter-monthly', 9.0, '2026-11-18 13:53:50', 'RENEWED', NULL, 139, 1, 'INV-7730440'),
  (30, 'SUB-418403', 'pro-yearly', 290.0, '2026-11-18 13:54:08', 'RENEWED', NULL, 145, 1, 'INV-7730441'),
  (31, 'SUB-418410', 'team-yearly', 790.0, '2026-11-18 13:54:21', 'RENEWED', NULL, 183, 1, 'INV-7730442'),
  (32, 'SUB-418417', 'pro-monthly', 29.0, '2026-11-18 13:55:24', 'RENEWED', NULL, 73, 1, 'INV-7730443'),
  (33, 'SUB-418424', 'pro-monthly', 29.0, '2026-11-18 13:55:59', 'RENEWED', NULL, 79, 1, 'INV-7730444'),
  (34, 'SUB-418431', 'team-monthly', 79.0, '2026-11-18 13:56:34', 'RENEWED', NULL, 68, 1, 'INV-7730445'),
  (35, 'SUB-418438', 'starter-monthly', 9.0, '2026-11-18 13:56:53', 'RENEWED', NULL, 168, 1, 'INV-7730446'),
  (36, 'SUB-418445', 'pro-monthly', 29.0, '2026-11-18 13:58:19', 'RENEWED', NULL, 109, 1, 'INV-7730447'),
  (37, 'SUB-418452', 'pro-monthly', 29.0, '2026-11-18 14:00:25', 'RENEWED', NULL, 166, 1, 'INV-7730448'),
  (38, 'SUB-418459', 'pro-monthly', 29.0, '2026-11-18 14:00:49', 'RENEWED', NULL, 127, 1, 'INV-7730449'),
  (39, 'SUB-418466', 'starter-monthly', 9.0, '2026-11-18 14:01:09', 'RENEWED', NULL, 78, 1, 'INV-7730450'),
  (40, 'SUB-418473', 'team-monthly', 79.0, '2026-11-18 14:01:17', 'RENEWED', NULL, 90, 1, 'INV-7730451'),
  (41, 'SUB-418487', 'pro-monthly', 29.0, '2026-11-18 14:01:48', 'RENEWED', NULL, 106, 1, 'INV-7730453'),
  (42, 'SUB-418480', 'pro-monthly', 29.0, '2026-11-18 14:01:59', 'RENEWED', NULL, 113, 1, 'INV-7730452'),
  (43, 'SUB-418494', 'pro-monthly', 29.0, '2026-11-18 14:02:34', 'RENEWED', NULL, 94, 1, 'INV-7730454'),
  (44, 'SUB-418508', 'pro-yearly', 290.0, '2026-11-18 14:03:24', 'RENEWED', NULL, 85, 1, 'INV-7730456'),
  (45, 'SUB-418501', 'pro-monthly', 29.0, '2026-11-18 14:03:24', 'RENEWED', NULL, 152, 1, 'INV-7730455'),
  (46, 'SUB-418522', 'starter-monthly', 9.0, '2026-11-18 14:04:01', 'RENEWED', NULL, 76, 1, 'INV-7730458'),
  (47, 'SUB-418515', 'team-monthly', 79.0, '2026-11-18 14:04:07', 'RENEWED', NULL, 154, 1, 'INV-7730457'),
  (48, 'SUB-418529', 'pro-monthly', 29.0, '2026-11-18 14:04:26', 'RENEWED', NULL, 89, 1, 'INV-7730459'),
  (49, 'SUB-418536', 'pro-monthly', 29.0, '2026-11-18 14:05:09', 'RENEWED', NULL, 116, 1, 'INV-7730460'),
  (50, 'SUB-418543', 'pro-monthly', 29.0, '2026-11-18 14:08:28', 'RENEWED', NULL, 178, 1, 'INV-7730461');

INSERT INTO renewal_attempts (id, subscription_id, plan, amount, attempted_at, status, error_code, latency_ms, attempts, invoice_id) VALUES
  (51, 'SUB-418550', 'starter-monthly', 9.0, '2026-11-18 14:09:07', 'FAILED', 'BILLING_TIMEOUT', 10626, 2, NULL),
  (52, 'SUB-418557', 'pro-yearly', 290.0, '2026-11-18 14:10:50', 'FAILED', 'BILLING_TIMEOUT', 10611, 2, NULL),
  (53, 'SUB-418564', 'pro-monthly', 29.0, '2026-11-18 14:11:26', 'FAILED', 'BILLING_TIMEOUT', 10620, 2, NULL),
  (54, 'SUB-418571', 'starter-monthly', 9.0, '2026-11-18 14:12:28', 'FAILED', 'BILLING_TIMEOUT', 10633, 2, NULL),
  (55, 'SUB-418578', 'team-yearly', 790.0, '2026-11-18 14:13:32', 'FAILED', 'BILLING_TIMEOUT', 10635, 2, NULL),
  (56, 'SUB-418585', 'team-monthly', 79.0, '2026-11-18 14:14:51', 'FAILED', 'BILLING_TIMEOUT', 10634, 2, NULL),
  (57, 'SUB-418592', 'team-yearly', 790.0, '2026-11-18 14:16:35', 'FAILED', 'BILLING_TIMEOUT', 10619, 2, NULL),
  (58, 'SUB-418599', 'starter-monthly', 9.0, '2026-11-18 14:19:47', 'FAILED', 'BILLING_TIMEOUT', 10640, 2, NULL),
  (59, 'SUB-418606', 'pro-monthly', 29.0, '2026-11-18 14:20:51', 'FAILED', 'BILLING_TIMEOUT', 10622, 2, NULL),
  (60, 'SUB-418613', 'team-yearly', 790.0, '2026-11-18 14:21:50', 'FAILED', 'BILLING_TIMEOUT', 10621, 2, NULL),
  (61, 'SUB-418620', 'pro-monthly', 29.0, '2026-11-18 14:23:08', 'FAILED', 'BILLING_TIMEOUT', 10618, 2, NULL),
  (62, 'SUB-418627', 'team-monthly', 79.0, '2026-11-18 14:26:00', 'FAILED', 'BILLING_TIMEOUT', 10632, 2, NULL),
  (63, 'SUB-418634', 'team-yearly', 790.0, '2026-11-18 14:29:32', 'FAILED', 'BILLING_TIMEOUT', 10620, 2, NULL),
  (64, 'SUB-418641', 'team-yearly', 790.0, '2026-11-18 14:30:48', 'FAILED', 'BILLING_TIMEOUT', 10636, 2, NULL),
  (65, 'SUB-418648', 'starter-monthly', 9.0, '2026-11-18 14:32:06', 'FAILED', 'BILLING_TIMEOUT', 10636, 2, NULL),
  (66, 'SUB-418669', 'team-yearly', 790.0, '2026-11-18 14:34:07', 'FAILED', 'BILLING_TIMEOUT', 10633, 2, NULL),
  (67, 'SUB-418662', 'starter-monthly', 9.0, '2026-11-18 14:34:29', 'FAILED', 'BILLING_TIMEOUT', 10615, 2, NULL),
  (68, 'SUB-418655', 'pro-monthly', 29.0, '2026-11-18 14:34:52', 'FAILED', 'BILLING_TIMEOUT', 10624, 2, NULL),
  (69, 'SUB-418676', 'team-monthly', 79.0, '2026-11-18 14:36:14', 'FAILED', 'BILLING_TIMEOUT', 10625, 2, NULL),
  (70, 'SUB-418683', 'pro-monthly', 29.0, '2026-11-18 14:36:15', 'FAILED', 'BILLING_TIMEOUT', 10619, 2, NULL),
  (71, 'SUB-418697', 'team-monthly', 79.0, '2026-11-18 14:37:28', 'FAILED', 'BILLING_TIMEOUT', 10630, 2, NULL),
  (72, 'SUB-418704', 'team-monthly', 79.0, '2026-11-18 14:37:42', 'FAILED', 'BILLING_TIMEOUT', 10614, 2, NULL),
  (73, 'SUB-418690', 'pro-yearly', 290.0, '2026-11-18 14:37:50', 'FAILED', 'BILLING_TIMEOUT', 10635, 2, NULL),
  (74, 'SUB-418711', 'starter-monthly', 9.0, '2026-11-18 14:40:32', 'FAILED', 'BILLING_TIMEOUT', 10631, 2, NULL),
  (75, 'SUB-418725', 'pro-monthly', 29.0, '2026-11-18 14:44:18', 'FAILED', 'BILLING_TIMEOUT', 10614, 2, NULL);

INSERT INTO renewal_attempts (id, subscription_id, plan, amount, attempted_at, status, error_code, latency_ms, attempts, invoice_id) VALUES
  (76, 'SUB-418718', 'pro-monthly', 29.0, '2026-11-18 14:44:27', 'FAILED', 'BILLING_TIMEOUT', 10626, 2, NULL);
