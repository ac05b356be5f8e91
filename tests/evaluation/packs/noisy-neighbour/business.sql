-- noisy-neighbour business data: batch job definitions and runs, deploy history and logins of
-- 2026-11-10 00:30-02:00 UTC. Times are UTC. SQLite- and MariaDB-compatible.

CREATE TABLE batch_jobs (
  id INTEGER PRIMARY KEY,
  job_name VARCHAR(64) NOT NULL,
  schedule VARCHAR(32) NOT NULL,
  run_host VARCHAR(64) NOT NULL,
  target VARCHAR(128) NOT NULL,
  owner_team VARCHAR(32) NOT NULL,
  updated_at DATETIME NOT NULL,
  change_id VARCHAR(16),
  description VARCHAR(255)
);

INSERT INTO batch_jobs (id, job_name, schedule, run_host, target, owner_team, updated_at, change_id, description) VALUES
  (1, 'hourly-kpi-rollup', '45 * * * *', 'pg-shared-01', 'pg-shared-01/analytics', 'data', '2026-08-02 10:00:00', 'CHG-70110', 'Hourly KPI rollup (small aggregates)'),
  (2, 'nightly-export', '15 1 * * *', 'pg-shared-01', 'pg-shared-01/analytics, accounts_archive', 'data', '2026-11-09 16:20:00', 'CHG-70488', 'Full export of order history to S3 for the data lake; moved from pg-replica-02 (taken out for the PostgreSQL 16 upgrade) to pg-shared-01'),
  (3, 'loyalty-points-expiry', '0 3 * * *', 'loyalty-cron', 'pg-shared-01/loyalty', 'loyalty', '2026-10-14 09:30:00', 'CHG-70301', 'Expire points older than 24 months'),
  (4, 'sessions-cleanup', '*/30 * * * *', 'account-cron', 'pg-shared-01/accounts', 'identity', '2026-06-21 12:00:00', 'CHG-69877', 'Delete expired sessions in batches of 5000');

CREATE TABLE job_runs (
  id INTEGER PRIMARY KEY,
  run_id VARCHAR(24) NOT NULL,
  job_name VARCHAR(64) NOT NULL,
  run_host VARCHAR(64) NOT NULL,
  started_at DATETIME NOT NULL,
  finished_at DATETIME,
  status VARCHAR(16) NOT NULL,
  rows_processed INTEGER
);

INSERT INTO job_runs (id, run_id, job_name, run_host, started_at, finished_at, status, rows_processed) VALUES
  (1, 'JR-20261108-0115', 'nightly-export', 'pg-replica-02', '2026-11-08 01:15:01', '2026-11-08 03:02:44', 'SUCCEEDED', 127912044),
  (2, 'JR-20261109-0115', 'nightly-export', 'pg-replica-02', '2026-11-09 01:15:02', '2026-11-09 03:05:10', 'SUCCEEDED', 128205310),
  (3, 'JR-20261110-0000', 'sessions-cleanup', 'account-cron', '2026-11-10 00:00:00', '2026-11-10 00:00:09', 'SUCCEEDED', 4210),
  (4, 'JR-20261110-0030', 'sessions-cleanup', 'account-cron', '2026-11-10 00:30:00', '2026-11-10 00:30:08', 'SUCCEEDED', 3987),
  (5, 'JR-20261110-0045', 'hourly-kpi-rollup', 'pg-shared-01', '2026-11-10 00:45:00', '2026-11-10 00:45:42', 'SUCCEEDED', 24),
  (6, 'JR-20261110-0100', 'sessions-cleanup', 'account-cron', '2026-11-10 01:00:00', '2026-11-10 01:00:10', 'SUCCEEDED', 4102),
  (7, 'JR-20261110-0115', 'nightly-export', 'pg-shared-01', '2026-11-10 01:15:02', NULL, 'RUNNING', NULL),
  (8, 'JR-20261110-0130', 'sessions-cleanup', 'account-cron', '2026-11-10 01:30:00', '2026-11-10 01:31:52', 'SUCCEEDED', 3890),
  (9, 'JR-20261110-0145', 'hourly-kpi-rollup', 'pg-shared-01', '2026-11-10 01:45:00', '2026-11-10 01:46:58', 'SUCCEEDED', 24);

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
  (1, 'account-service', 'v9.4.1', 'v9.4.0', '2026-11-07 14:12:30', 'deploy-bot', 'CHG-70455', 'Profile photo upload limits', 'SUCCEEDED'),
  (2, 'api-gateway', '3.2.0', '3.1.7', '2026-11-09 11:05:44', 'deploy-bot', 'CHG-70479', 'iOS app 7.12 routes', 'SUCCEEDED'),
  (3, 'loyalty-service', 'v2.3.0', 'v2.2.5', '2026-11-10 00:40:18', 'deploy-bot', 'CHG-70492', 'Tier badges in balance response (night deploy window)', 'SUCCEEDED');

CREATE TABLE logins (
  id INTEGER PRIMARY KEY,
  user_id VARCHAR(16) NOT NULL,
  client VARCHAR(32) NOT NULL,
  attempted_at DATETIME NOT NULL,
  outcome VARCHAR(16) NOT NULL,
  latency_ms INTEGER NOT NULL
);

INSERT INTO logins (id, user_id, client, attempted_at, outcome, latency_ms) VALUES
  (1, 'U571957', 'app-android', '2026-11-10 00:30:13', 'OK', 192),
  (2, 'U927036', 'app-ios', '2026-11-10 00:31:01', 'OK', 212),
  (3, 'U874843', 'web', '2026-11-10 00:31:33', 'OK', 259),
  (4, 'U456980', 'app-ios', '2026-11-10 00:32:22', 'OK', 210),
  (5, 'U811756', 'app-ios', '2026-11-10 00:32:55', 'OK', 224),
  (6, 'U467622', 'web', '2026-11-10 00:33:31', 'OK', 205),
  (7, 'U744109', 'app-ios', '2026-11-10 00:34:25', 'OK', 252),
  (8, 'U962043', 'app-android', '2026-11-10 00:35:08', 'OK', 265),
  (9, 'U609649', 'app-android', '2026-11-10 00:36:03', 'OK', 201),
  (10, 'U331063', 'app-ios', '2026-11-10 00:36:57', 'OK', 249),
  (11, 'U604284', 'app-android', '2026-11-10 00:37:45', 'OK', 192),
  (12, 'U500285', 'web', '2026-11-10 00:38:29', 'OK', 250),
  (13, 'U254741', 'web', '2026-11-10 00:39:27', 'OK', 205),
  (14, 'U985381', 'app-ios', '2026-11-10 00:40:16', 'OK', 229),
  (15, 'U700415', 'app-ios', '2026-11-10 00:41:16', 'OK', 222),
  (16, 'U287046', 'app-ios', '2026-11-10 00:41:56', 'OK', 212),
  (17, 'U226714', 'web', '2026-11-10 00:42:52', 'OK', 250),
  (18, 'U305340', 'app-ios', '2026-11-10 00:43:34', 'OK', 268),
  (19, 'U891645', 'app-ios', '2026-11-10 00:44:10', 'OK', 246),
  (20, 'U468883', 'app-ios', '2026-11-10 00:44:50', 'OK', 254),
  (21, 'U211097', 'app-ios', '2026-11-10 00:45:31', 'OK', 238),
  (22, 'U809536', 'web', '2026-11-10 00:46:19', 'OK', 248),
  (23, 'U579356', 'web', '2026-11-10 00:47:11', 'OK', 203),
  (24, 'U917395', 'web', '2026-11-10 00:47:59', 'OK', 244),
  (25, 'U297072', 'app-android', '2026-11-10 00:48:41', 'OK', 249);

INSERT INTO logins (id, user_id, client, attempted_at, outcome, latency_ms) VALUES
  (26, 'U746638', 'app-android', '2026-11-10 00:49:20', 'OK', 213),
  (27, 'U948509', 'web', '2026-11-10 00:49:57', 'OK', 198),
  (28, 'U410201', 'app-android', '2026-11-10 00:50:30', 'OK', 231),
  (29, 'U432905', 'web', '2026-11-10 00:51:03', 'OK', 221),
  (30, 'U825103', 'app-android', '2026-11-10 00:51:48', 'OK', 243),
  (31, 'U853290', 'web', '2026-11-10 00:52:34', 'OK', 268),
  (32, 'U875294', 'web', '2026-11-10 00:53:34', 'OK', 198),
  (33, 'U324912', 'app-ios', '2026-11-10 00:54:14', 'OK', 238),
  (34, 'U636326', 'app-ios', '2026-11-10 00:54:56', 'OK', 231),
  (35, 'U423309', 'app-ios', '2026-11-10 00:55:45', 'OK', 227),
  (36, 'U715086', 'web', '2026-11-10 00:56:29', 'OK', 257),
  (37, 'U212006', 'app-android', '2026-11-10 00:57:28', 'OK', 225),
  (38, 'U568091', 'app-ios', '2026-11-10 00:58:20', 'OK', 216),
  (39, 'U443745', 'app-android', '2026-11-10 00:59:08', 'OK', 263),
  (40, 'U167469', 'web', '2026-11-10 01:00:01', 'OK', 256),
  (41, 'U977587', 'web', '2026-11-10 01:00:51', 'OK', 198),
  (42, 'U143888', 'web', '2026-11-10 01:01:32', 'OK', 202),
  (43, 'U323513', 'web', '2026-11-10 01:02:03', 'OK', 227),
  (44, 'U443337', 'web', '2026-11-10 01:02:51', 'OK', 232),
  (45, 'U891636', 'web', '2026-11-10 01:03:33', 'OK', 197),
  (46, 'U805338', 'app-android', '2026-11-10 01:04:13', 'OK', 246),
  (47, 'U893338', 'app-android', '2026-11-10 01:05:08', 'OK', 271),
  (48, 'U213300', 'app-ios', '2026-11-10 01:06:01', 'OK', 204),
  (49, 'U750042', 'web', '2026-11-10 01:07:01', 'OK', 240),
  (50, 'U835297', 'app-android', '2026-11-10 01:08:00', 'OK', 249);

INSERT INTO logins (id, user_id, client, attempted_at, outcome, latency_ms) VALUES
  (51, 'U530991', 'app-android', '2026-11-10 01:08:42', 'OK', 252),
  (52, 'U281797', 'app-ios', '2026-11-10 01:09:33', 'OK', 247),
  (53, 'U975359', 'app-ios', '2026-11-10 01:10:26', 'OK', 216),
  (54, 'U992317', 'app-ios', '2026-11-10 01:11:03', 'OK', 200),
  (55, 'U708530', 'app-android', '2026-11-10 01:11:55', 'OK', 239),
  (56, 'U318930', 'app-ios', '2026-11-10 01:12:54', 'OK', 229),
  (57, 'U834566', 'app-android', '2026-11-10 01:13:48', 'BAD_PASSWORD', 222),
  (58, 'U582954', 'app-android', '2026-11-10 01:14:33', 'OK', 257),
  (59, 'U158939', 'app-android', '2026-11-10 01:15:28', 'OK', 334),
  (60, 'U506093', 'web', '2026-11-10 01:16:16', 'OK', 315),
  (61, 'U191893', 'web', '2026-11-10 01:17:08', 'OK', 1053),
  (62, 'U893371', 'app-ios', '2026-11-10 01:18:04', 'OK', 363),
  (63, 'U686331', 'web', '2026-11-10 01:18:55', 'OK', 978),
  (64, 'U362311', 'app-ios', '2026-11-10 01:19:43', 'OK', 247),
  (65, 'U651310', 'web', '2026-11-10 01:20:37', 'TIMEOUT', 2000),
  (66, 'U571302', 'app-ios', '2026-11-10 01:21:34', 'OK', 536),
  (67, 'U132296', 'app-ios', '2026-11-10 01:22:09', 'OK', 714),
  (68, 'U508964', 'web', '2026-11-10 01:22:52', 'OK', 540),
  (69, 'U263867', 'app-android', '2026-11-10 01:23:37', 'OK', 289),
  (70, 'U572745', 'app-ios', '2026-11-10 01:24:32', 'OK', 427),
  (71, 'U428430', 'app-android', '2026-11-10 01:25:11', 'TIMEOUT', 2000),
  (72, 'U625070', 'web', '2026-11-10 01:25:58', 'OK', 320),
  (73, 'U949163', 'app-ios', '2026-11-10 01:26:40', 'TIMEOUT', 2000),
  (74, 'U388638', 'web', '2026-11-10 01:27:25', 'OK', 351),
  (75, 'U420232', 'app-android', '2026-11-10 01:28:12', 'OK', 659);

INSERT INTO logins (id, user_id, client, attempted_at, outcome, latency_ms) VALUES
  (76, 'U594741', 'web', '2026-11-10 01:29:06', 'OK', 292),
  (77, 'U950800', 'web', '2026-11-10 01:29:43', 'OK', 670),
  (78, 'U632186', 'app-ios', '2026-11-10 01:30:31', 'OK', 389),
  (79, 'U839788', 'app-android', '2026-11-10 01:31:24', 'OK', 960),
  (80, 'U728049', 'app-ios', '2026-11-10 01:32:11', 'OK', 661),
  (81, 'U862906', 'web', '2026-11-10 01:33:05', 'TIMEOUT', 2000),
  (82, 'U430742', 'app-android', '2026-11-10 01:33:53', 'OK', 259),
  (83, 'U868514', 'web', '2026-11-10 01:34:48', 'OK', 301),
  (84, 'U754310', 'web', '2026-11-10 01:35:29', 'OK', 959),
  (85, 'U774582', 'app-android', '2026-11-10 01:36:28', 'BAD_PASSWORD', 637),
  (86, 'U307448', 'web', '2026-11-10 01:37:16', 'OK', 464),
  (87, 'U176636', 'app-android', '2026-11-10 01:38:15', 'OK', 341),
  (88, 'U882692', 'web', '2026-11-10 01:38:48', 'OK', 252),
  (89, 'U597403', 'app-ios', '2026-11-10 01:39:26', 'OK', 389),
  (90, 'U687642', 'app-ios', '2026-11-10 01:40:14', 'OK', 930),
  (91, 'U425692', 'app-android', '2026-11-10 01:41:10', 'OK', 1057),
  (92, 'U820798', 'web', '2026-11-10 01:42:09', 'OK', 1034),
  (93, 'U364604', 'app-android', '2026-11-10 01:43:09', 'OK', 892),
  (94, 'U206223', 'app-android', '2026-11-10 01:43:58', 'OK', 320),
  (95, 'U111501', 'app-android', '2026-11-10 01:44:56', 'OK', 366),
  (96, 'U457465', 'web', '2026-11-10 01:45:48', 'OK', 655),
  (97, 'U176853', 'web', '2026-11-10 01:46:24', 'OK', 1788),
  (98, 'U816496', 'app-ios', '2026-11-10 01:47:23', 'TIMEOUT', 2000),
  (99, 'U552277', 'web', '2026-11-10 01:48:22', 'OK', 588),
  (100, 'U748193', 'app-android', '2026-11-10 01:49:05', 'OK', 306);

INSERT INTO logins (id, user_id, client, attempted_at, outcome, latency_ms) VALUES
  (101, 'U342083', 'app-android', '2026-11-10 01:49:57', 'OK', 620),
  (102, 'U675947', 'app-android', '2026-11-10 01:50:46', 'OK', 377),
  (103, 'U891214', 'app-ios', '2026-11-10 01:51:31', 'OK', 1242),
  (104, 'U791221', 'app-ios', '2026-11-10 01:52:05', 'OK', 286),
  (105, 'U238235', 'app-ios', '2026-11-10 01:53:03', 'OK', 398),
  (106, 'U881150', 'web', '2026-11-10 01:53:33', 'OK', 1608),
  (107, 'U161565', 'app-android', '2026-11-10 01:54:06', 'OK', 273),
  (108, 'U158368', 'web', '2026-11-10 01:54:56', 'OK', 657),
  (109, 'U752279', 'app-android', '2026-11-10 01:55:41', 'TIMEOUT', 2000),
  (110, 'U365148', 'app-android', '2026-11-10 01:56:37', 'OK', 348),
  (111, 'U524841', 'web', '2026-11-10 01:57:21', 'BAD_PASSWORD', 885),
  (112, 'U904325', 'app-android', '2026-11-10 01:58:06', 'OK', 406),
  (113, 'U241840', 'web', '2026-11-10 01:58:58', 'OK', 422),
  (114, 'U424825', 'web', '2026-11-10 01:59:52', 'OK', 335);
