-- dependency-stopped business data: operations changes, deploy history and storefront search sessions of
-- 2026-10-27 15:00-16:30 UTC. Times are UTC. SQLite- and MariaDB-compatible.

CREATE TABLE ops_changes (
  id INTEGER PRIMARY KEY,
  change_id VARCHAR(16) NOT NULL,
  applied_at DATETIME NOT NULL,
  target VARCHAR(64) NOT NULL,
  action VARCHAR(32) NOT NULL,
  old_value VARCHAR(64),
  new_value VARCHAR(64),
  actor VARCHAR(32) NOT NULL,
  description VARCHAR(255) NOT NULL
);

INSERT INTO ops_changes (id, change_id, applied_at, target, action, old_value, new_value, actor, description) VALUES
  (1, 'OPS-4452', '2026-10-26 10:12:00', 'redis-sessions', 'upgrade', '7.2.4', '7.2.5', 'mzhang', 'Redis patch upgrade'),
  (2, 'OPS-4460', '2026-10-26 16:40:00', 'es-search', 'config', 'refresh_interval=1s', 'refresh_interval=5s', 'kpatel', 'Lower refresh rate on products-v41 to cut indexing load'),
  (3, 'OPS-4466', '2026-10-27 14:20:00', 'recommendation-service', 'hpa', 'minReplicas=3', 'minReplicas=2', 'hpa-tuner', 'Autoscaling floor for off-peak'),
  (4, 'OPS-4471', '2026-10-27 15:41:26', 'search-service', 'scale', 'replicas=6', 'replicas=0', 'kpatel', 'Maintenance: stop search-service while the products-v42 reindex runs on es-search (planned 15:40-17:00)');

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
  (1, 'search-service', 'v6.3.0', 'v6.2.2', '2026-10-22 11:02:41', 'deploy-bot', 'CHG-40211', 'Synonym dictionary v12', 'SUCCEEDED'),
  (2, 'storefront-bff', 'v12.4.0', 'v12.3.1', '2026-10-26 13:30:05', 'deploy-bot', 'CHG-40233', 'Category page facets from search', 'SUCCEEDED'),
  (3, 'recommendation-service', 'v3.8.1', 'v3.8.0', '2026-10-26 15:15:48', 'deploy-bot', 'CHG-40236', 'More-like-this boost by margin', 'SUCCEEDED'),
  (4, 'product-service', 'v2.9.0', 'v2.8.4', '2026-10-27 15:05:20', 'deploy-bot', 'CHG-40251', 'Price history API; deprecate price_old', 'SUCCEEDED');

CREATE TABLE search_sessions (
  id INTEGER PRIMARY KEY,
  session_id VARCHAR(20) NOT NULL,
  query VARCHAR(64) NOT NULL,
  started_at DATETIME NOT NULL,
  results INTEGER,
  status VARCHAR(24) NOT NULL,
  converted INTEGER NOT NULL
);

INSERT INTO search_sessions (id, session_id, query, started_at, results, status, converted) VALUES
  (1, 'S-39352514', 'running shoes', '2026-10-27 15:00:25', 351, 'OK', 0),
  (2, 'S-41347106', 'headphones', '2026-10-27 15:01:36', 519, 'OK', 0),
  (3, 'S-21910808', 'phone case', '2026-10-27 15:02:54', 599, 'OK', 1),
  (4, 'S-29200252', 'led bulb', '2026-10-27 15:03:57', 201, 'OK', 0),
  (5, 'S-47979360', 'usb-c hub', '2026-10-27 15:05:02', 828, 'OK', 0),
  (6, 'S-71545580', 'usb-c hub', '2026-10-27 15:06:09', 100, 'OK', 1),
  (7, 'S-37309979', 'wool socks', '2026-10-27 15:06:56', 89, 'OK', 0),
  (8, 'S-60769781', 'headphones', '2026-10-27 15:08:13', 810, 'OK', 0),
  (9, 'S-12628550', 'headphones', '2026-10-27 15:09:12', 379, 'OK', 0),
  (10, 'S-53722994', 'led bulb', '2026-10-27 15:09:56', 218, 'OK', 0),
  (11, 'S-98360030', 'backpack', '2026-10-27 15:11:03', 871, 'OK', 0),
  (12, 'S-32926402', 'phone case', '2026-10-27 15:11:46', 162, 'OK', 0),
  (13, 'S-43549586', 'yoga mat', '2026-10-27 15:12:51', 796, 'OK', 0),
  (14, 'S-36533448', 'air fryer', '2026-10-27 15:13:45', 121, 'OK', 0),
  (15, 'S-50350566', 'kids bike', '2026-10-27 15:14:45', 585, 'OK', 0),
  (16, 'S-40167514', 'espresso machine', '2026-10-27 15:15:56', 670, 'OK', 0),
  (17, 'S-58486194', 'phone case', '2026-10-27 15:17:04', 634, 'OK', 0),
  (18, 'S-62291682', 'rain jacket', '2026-10-27 15:18:20', 308, 'OK', 0),
  (19, 'S-78634428', 'air fryer', '2026-10-27 15:19:37', 156, 'OK', 0),
  (20, 'S-92606230', 'led bulb', '2026-10-27 15:20:18', 303, 'OK', 0),
  (21, 'S-43989129', 'espresso machine', '2026-10-27 15:21:08', 871, 'OK', 0),
  (22, 'S-57699106', 'led bulb', '2026-10-27 15:21:58', 90, 'OK', 0),
  (23, 'S-13395336', 'standing desk', '2026-10-27 15:23:16', 677, 'OK', 0),
  (24, 'S-14644029', 'phone case', '2026-10-27 15:24:17', 554, 'OK', 0),
  (25, 'S-95056689', 'usb-c hub', '2026-10-27 15:24:58', 165, 'OK', 0);

INSERT INTO search_sessions (id, session_id, query, started_at, results, status, converted) VALUES
  (26, 'S-78592410', 'usb-c hub', '2026-10-27 15:25:50', 161, 'OK', 0),
  (27, 'S-81469651', 'phone case', '2026-10-27 15:27:07', 737, 'OK', 0),
  (28, 'S-74627987', 'garden hose', '2026-10-27 15:27:57', 237, 'OK', 0),
  (29, 'S-55425781', 'garden hose', '2026-10-27 15:29:08', 30, 'OK', 0),
  (30, 'S-14919827', 'espresso machine', '2026-10-27 15:30:28', 595, 'OK', 0),
  (31, 'S-50630154', 'running shoes', '2026-10-27 15:31:40', 830, 'OK', 0),
  (32, 'S-37806471', 'running shoes', '2026-10-27 15:32:56', 348, 'OK', 0),
  (33, 'S-53886666', 'usb-c hub', '2026-10-27 15:33:46', 149, 'OK', 1),
  (34, 'S-22471133', 'backpack', '2026-10-27 15:34:45', 702, 'OK', 0),
  (35, 'S-24799289', 'wool socks', '2026-10-27 15:35:45', 121, 'OK', 0),
  (36, 'S-45409329', 'usb-c hub', '2026-10-27 15:37:01', 198, 'OK', 0),
  (37, 'S-64591216', 'rain jacket', '2026-10-27 15:38:04', 347, 'OK', 0),
  (38, 'S-16474573', 'backpack', '2026-10-27 15:38:48', 604, 'OK', 0),
  (39, 'S-98134587', 'running shoes', '2026-10-27 15:40:00', 621, 'OK', 0),
  (40, 'S-32193412', 'standing desk', '2026-10-27 15:40:47', 363, 'OK', 0),
  (41, 'S-11025753', 'usb-c hub', '2026-10-27 15:42:07', NULL, 'SEARCH_UNAVAILABLE', 0),
  (42, 'S-69041280', 'air fryer', '2026-10-27 15:43:09', NULL, 'SEARCH_UNAVAILABLE', 0),
  (43, 'S-82020337', 'running shoes', '2026-10-27 15:43:54', NULL, 'SEARCH_UNAVAILABLE', 0),
  (44, 'S-32899897', 'running shoes', '2026-10-27 15:44:45', NULL, 'SEARCH_UNAVAILABLE', 0),
  (45, 'S-58727593', 'rain jacket', '2026-10-27 15:45:56', NULL, 'SEARCH_UNAVAILABLE', 0),
  (46, 'S-80598115', 'garden hose', '2026-10-27 15:46:46', NULL, 'SEARCH_UNAVAILABLE', 0),
  (47, 'S-70669296', 'yoga mat', '2026-10-27 15:48:00', NULL, 'SEARCH_UNAVAILABLE', 0),
  (48, 'S-24844649', 'espresso machine', '2026-10-27 15:49:01', NULL, 'SEARCH_UNAVAILABLE', 0),
  (49, 'S-83395109', 'backpack', '2026-10-27 15:50:14', NULL, 'SEARCH_UNAVAILABLE', 0),
  (50, 'S-76939949', 'espresso machine', '2026-10-27 15:50:57', NULL, 'SEARCH_UNAVAILABLE', 0);

INSERT INTO search_sessions (id, session_id, query, started_at, results, status, converted) VALUES
  (51, 'S-42898926', 'espresso machine', '2026-10-27 15:52:00', NULL, 'SEARCH_UNAVAILABLE', 0),
  (52, 'S-34662983', 'phone case', '2026-10-27 15:52:42', NULL, 'SEARCH_UNAVAILABLE', 0),
  (53, 'S-51229439', 'running shoes', '2026-10-27 15:53:51', NULL, 'SEARCH_UNAVAILABLE', 0),
  (54, 'S-42672259', 'yoga mat', '2026-10-27 15:54:59', NULL, 'SEARCH_UNAVAILABLE', 0),
  (55, 'S-17154351', 'running shoes', '2026-10-27 15:55:42', NULL, 'SEARCH_UNAVAILABLE', 0),
  (56, 'S-29283351', 'kids bike', '2026-10-27 15:56:36', NULL, 'SEARCH_UNAVAILABLE', 0),
  (57, 'S-65307391', 'air fryer', '2026-10-27 15:57:39', NULL, 'SEARCH_UNAVAILABLE', 0),
  (58, 'S-43715254', 'garden hose', '2026-10-27 15:58:57', NULL, 'SEARCH_UNAVAILABLE', 0),
  (59, 'S-55451468', 'rain jacket', '2026-10-27 16:00:17', NULL, 'SEARCH_UNAVAILABLE', 0),
  (60, 'S-81809962', 'yoga mat', '2026-10-27 16:01:03', NULL, 'SEARCH_UNAVAILABLE', 0),
  (61, 'S-21326395', 'headphones', '2026-10-27 16:01:52', NULL, 'SEARCH_UNAVAILABLE', 0),
  (62, 'S-69123392', 'kids bike', '2026-10-27 16:02:56', NULL, 'SEARCH_UNAVAILABLE', 0),
  (63, 'S-97995152', 'usb-c hub', '2026-10-27 16:03:36', NULL, 'SEARCH_UNAVAILABLE', 0),
  (64, 'S-76299353', 'backpack', '2026-10-27 16:04:28', NULL, 'SEARCH_UNAVAILABLE', 0),
  (65, 'S-85562897', 'usb-c hub', '2026-10-27 16:05:30', NULL, 'SEARCH_UNAVAILABLE', 0),
  (66, 'S-36565147', 'running shoes', '2026-10-27 16:06:22', NULL, 'SEARCH_UNAVAILABLE', 0),
  (67, 'S-35471689', 'led bulb', '2026-10-27 16:07:41', NULL, 'SEARCH_UNAVAILABLE', 0),
  (68, 'S-94028616', 'air fryer', '2026-10-27 16:08:23', NULL, 'SEARCH_UNAVAILABLE', 0),
  (69, 'S-78546077', 'kids bike', '2026-10-27 16:09:13', NULL, 'SEARCH_UNAVAILABLE', 0),
  (70, 'S-36726429', 'standing desk', '2026-10-27 16:10:21', NULL, 'SEARCH_UNAVAILABLE', 0),
  (71, 'S-74629582', 'garden hose', '2026-10-27 16:11:27', NULL, 'SEARCH_UNAVAILABLE', 0),
  (72, 'S-93513645', 'kids bike', '2026-10-27 16:12:13', NULL, 'SEARCH_UNAVAILABLE', 0),
  (73, 'S-33760576', 'usb-c hub', '2026-10-27 16:13:24', NULL, 'SEARCH_UNAVAILABLE', 0),
  (74, 'S-42371164', 'wool socks', '2026-10-27 16:14:29', NULL, 'SEARCH_UNAVAILABLE', 0),
  (75, 'S-13025277', 'standing desk', '2026-10-27 16:15:16', NULL, 'SEARCH_UNAVAILABLE', 0);

INSERT INTO search_sessions (id, session_id, query, started_at, results, status, converted) VALUES
  (76, 'S-99132380', 'garden hose', '2026-10-27 16:16:17', NULL, 'SEARCH_UNAVAILABLE', 0),
  (77, 'S-83590858', 'air fryer', '2026-10-27 16:16:58', NULL, 'SEARCH_UNAVAILABLE', 0),
  (78, 'S-32307449', 'backpack', '2026-10-27 16:17:47', NULL, 'SEARCH_UNAVAILABLE', 0),
  (79, 'S-96783764', 'standing desk', '2026-10-27 16:18:35', NULL, 'SEARCH_UNAVAILABLE', 0),
  (80, 'S-93681798', 'running shoes', '2026-10-27 16:19:35', NULL, 'SEARCH_UNAVAILABLE', 0),
  (81, 'S-38047044', 'running shoes', '2026-10-27 16:20:30', NULL, 'SEARCH_UNAVAILABLE', 0),
  (82, 'S-93911140', 'phone case', '2026-10-27 16:21:41', NULL, 'SEARCH_UNAVAILABLE', 0),
  (83, 'S-38217574', 'phone case', '2026-10-27 16:22:53', NULL, 'SEARCH_UNAVAILABLE', 0),
  (84, 'S-98660619', 'air fryer', '2026-10-27 16:23:47', NULL, 'SEARCH_UNAVAILABLE', 0),
  (85, 'S-89101040', 'rain jacket', '2026-10-27 16:24:29', NULL, 'SEARCH_UNAVAILABLE', 0),
  (86, 'S-65159261', 'rain jacket', '2026-10-27 16:25:28', NULL, 'SEARCH_UNAVAILABLE', 0),
  (87, 'S-35693381', 'usb-c hub', '2026-10-27 16:26:21', NULL, 'SEARCH_UNAVAILABLE', 0),
  (88, 'S-50517061', 'yoga mat', '2026-10-27 16:27:07', NULL, 'SEARCH_UNAVAILABLE', 0),
  (89, 'S-44420068', 'phone case', '2026-10-27 16:28:26', NULL, 'SEARCH_UNAVAILABLE', 0),
  (90, 'S-27738458', 'wool socks', '2026-10-27 16:29:28', NULL, 'SEARCH_UNAVAILABLE', 0);
