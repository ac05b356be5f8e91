-- clock-skew business data: host change log (patching, config, reboots), deploy history and cart reservations
-- of 2026-12-09 06:00-07:30 UTC. Times are UTC. SQLite- and MariaDB-compatible.

CREATE TABLE host_changes (
  id INTEGER PRIMARY KEY,
  change_id VARCHAR(16) NOT NULL,
  host VARCHAR(32) NOT NULL,
  change_type VARCHAR(24) NOT NULL,
  description VARCHAR(255) NOT NULL,
  old_value VARCHAR(128),
  new_value VARCHAR(128),
  changed_at DATETIME NOT NULL,
  changed_by VARCHAR(32) NOT NULL
);

INSERT INTO host_changes (id, change_id, host, change_type, description, old_value, new_value, changed_at, changed_by) VALUES
  (1, 'HC-88102', 'inventory-1', 'package-upgrade', 'security patch wave-0', 'openssl 3.0.14-1~deb12u2', 'openssl 3.0.15-1~deb12u1', '2026-12-02 06:31:40', 'unattended-upgrades'),
  (2, 'HC-88103', 'inventory-2', 'package-upgrade', 'security patch wave-0', 'openssl 3.0.14-1~deb12u2', 'openssl 3.0.15-1~deb12u1', '2026-12-02 06:32:02', 'unattended-upgrades'),
  (3, 'HC-88140', 'cart-1', 'config', 'nginx keepalive_timeout for cart upstream', '65s', '30s', '2026-12-08 15:12:33', 'ansible'),
  (4, 'HC-88161', 'cart-2', 'package-upgrade', 'security patch wave-1', 'chrony 4.3-2+deb12u1', 'chrony 4.3-2+deb12u2', '2026-12-09 06:31:06', 'unattended-upgrades'),
  (5, 'HC-88162', 'cart-2', 'config-file', '/etc/chrony/chrony.conf replaced by package maintainer version (dpkg --force-confnew)', 'server ntp1.corp.internal iburst; server ntp2.corp.internal iburst', 'pool 2.debian.pool.ntp.org iburst', '2026-12-09 06:31:06', 'unattended-upgrades'),
  (6, 'HC-88163', 'cart-2', 'service-restart', 'chrony.service restarted by package upgrade', NULL, NULL, '2026-12-09 06:31:09', 'unattended-upgrades'),
  (7, 'HC-88164', 'cart-2', 'package-upgrade', 'security patch wave-1', 'linux-image 6.1.0-27-amd64', 'linux-image 6.1.0-28-amd64', '2026-12-09 06:31:32', 'unattended-upgrades'),
  (8, 'HC-88165', 'cart-2', 'reboot', 'automatic reboot after upgrade (reboot-required)', NULL, NULL, '2026-12-09 06:34:10', 'unattended-upgrades'),
  (9, 'HC-88170', 'cart-1', 'package-upgrade', 'security patch wave-2 (scheduled)', NULL, NULL, '2026-12-16 06:30:00', 'unattended-upgrades'),
  (10, 'HC-88171', 'cart-3', 'package-upgrade', 'security patch wave-2 (scheduled)', NULL, NULL, '2026-12-16 06:30:00', 'unattended-upgrades');


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
  (1, 'inventory-service', '11.0.3', '11.0.2', '2026-12-04 13:20:11', 'deploy-bot', 'CHG-90211', 'Signed internal requests: max age 60s', 'SUCCEEDED'),
  (2, 'cart-service', '8.4.1', '8.4.0', '2026-12-08 16:44:05', 'deploy-bot', 'CHG-90270', 'Cart merge on login', 'SUCCEEDED'),
  (3, 'auth-service', '6.2.0', '6.1.4', '2026-12-09 06:02:40', 'deploy-bot', 'CHG-90288', 'Signing key rotation to kid auth-2026-12', 'SUCCEEDED');


CREATE TABLE cart_reservations (
  id INTEGER PRIMARY KEY,
  requested_at DATETIME NOT NULL,
  sku VARCHAR(16) NOT NULL,
  cart_host VARCHAR(16) NOT NULL,
  status VARCHAR(16) NOT NULL,
  error_code VARCHAR(32)
);

INSERT INTO cart_reservations (id, requested_at, sku, cart_host, status, error_code) VALUES
  (1, '2026-12-09 06:01:50', 'SKU-260930', 'cart-3', 'RESERVED', NULL),
  (2, '2026-12-09 06:01:53', 'SKU-710007', 'cart-1', 'RESERVED', NULL),
  (3, '2026-12-09 06:02:02', 'SKU-320898', 'cart-2', 'RESERVED', NULL),
  (4, '2026-12-09 06:02:18', 'SKU-320898', 'cart-1', 'RESERVED', NULL),
  (5, '2026-12-09 06:02:57', 'SKU-260930', 'cart-1', 'RESERVED', NULL),
  (6, '2026-12-09 06:05:16', 'SKU-431181', 'cart-2', 'RESERVED', NULL),
  (7, '2026-12-09 06:05:16', 'SKU-234567', 'cart-2', 'RESERVED', NULL),
  (8, '2026-12-09 06:05:47', 'SKU-176806', 'cart-3', 'RESERVED', NULL),
  (9, '2026-12-09 06:05:47', 'SKU-457459', 'cart-3', 'RESERVED', NULL),
  (10, '2026-12-09 06:05:51', 'SKU-501681', 'cart-2', 'RESERVED', NULL),
  (11, '2026-12-09 06:06:33', 'SKU-702538', 'cart-2', 'RESERVED', NULL),
  (12, '2026-12-09 06:07:02', 'SKU-495659', 'cart-2', 'RESERVED', NULL),
  (13, '2026-12-09 06:08:55', 'SKU-968354', 'cart-3', 'RESERVED', NULL),
  (14, '2026-12-09 06:09:32', 'SKU-444263', 'cart-1', 'RESERVED', NULL),
  (15, '2026-12-09 06:10:02', 'SKU-306647', 'cart-3', 'RESERVED', NULL),
  (16, '2026-12-09 06:10:10', 'SKU-828134', 'cart-3', 'RESERVED', NULL),
  (17, '2026-12-09 06:10:51', 'SKU-896921', 'cart-2', 'RESERVED', NULL),
  (18, '2026-12-09 06:11:22', 'SKU-895547', 'cart-3', 'RESERVED', NULL),
  (19, '2026-12-09 06:11:43', 'SKU-501681', 'cart-3', 'RESERVED', NULL),
  (20, '2026-12-09 06:13:53', 'SKU-896921', 'cart-3', 'RESERVED', NULL),
  (21, '2026-12-09 06:14:22', 'SKU-828134', 'cart-2', 'RESERVED', NULL),
  (22, '2026-12-09 06:14:57', 'SKU-470209', 'cart-3', 'RESERVED', NULL),
  (23, '2026-12-09 06:15:36', 'SKU-587067', 'cart-2', 'RESERVED', NULL),
  (24, '2026-12-09 06:15:40', 'SKU-451960', 'cart-1', 'RESERVED', NULL),
  (25, '2026-12-09 06:16:15', 'SKU-486762', 'cart-1', 'RESERVED', NULL);

INSERT INTO cart_reservations (id, requested_at, sku, cart_host, status, error_code) VALUES
  (26, '2026-12-09 06:17:24', 'SKU-702538', 'cart-1', 'RESERVED', NULL),
  (27, '2026-12-09 06:18:49', 'SKU-968354', 'cart-1', 'RESERVED', NULL),
  (28, '2026-12-09 06:21:20', 'SKU-495659', 'cart-2', 'RESERVED', NULL),
  (29, '2026-12-09 06:23:13', 'SKU-320898', 'cart-3', 'RESERVED', NULL),
  (30, '2026-12-09 06:25:00', 'SKU-260930', 'cart-3', 'RESERVED', NULL),
  (31, '2026-12-09 06:25:08', 'SKU-451960', 'cart-3', 'RESERVED', NULL),
  (32, '2026-12-09 06:26:14', 'SKU-783835', 'cart-2', 'RESERVED', NULL),
  (33, '2026-12-09 06:27:11', 'SKU-895547', 'cart-2', 'RESERVED', NULL),
  (34, '2026-12-09 06:27:27', 'SKU-921038', 'cart-1', 'RESERVED', NULL),
  (35, '2026-12-09 06:29:18', 'SKU-431181', 'cart-3', 'RESERVED', NULL),
  (36, '2026-12-09 06:29:42', 'SKU-720671', 'cart-1', 'RESERVED', NULL),
  (37, '2026-12-09 06:30:00', 'SKU-710007', 'cart-1', 'RESERVED', NULL),
  (38, '2026-12-09 06:31:53', 'SKU-208334', 'cart-2', 'RESERVED', NULL),
  (39, '2026-12-09 06:33:20', 'SKU-587067', 'cart-1', 'RESERVED', NULL),
  (40, '2026-12-09 06:33:34', 'SKU-260930', 'cart-3', 'RESERVED', NULL),
  (41, '2026-12-09 06:33:51', 'SKU-451960', 'cart-3', 'RESERVED', NULL),
  (42, '2026-12-09 06:33:54', 'SKU-495659', 'cart-3', 'RESERVED', NULL),
  (43, '2026-12-09 06:34:22', 'SKU-895547', 'cart-1', 'RESERVED', NULL),
  (44, '2026-12-09 06:35:57', 'SKU-828134', 'cart-1', 'RESERVED', NULL),
  (45, '2026-12-09 06:36:43', 'SKU-444263', 'cart-3', 'RESERVED', NULL),
  (46, '2026-12-09 06:37:28', 'SKU-828134', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (47, '2026-12-09 06:39:32', 'SKU-665500', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (48, '2026-12-09 06:39:57', 'SKU-828134', 'cart-2', 'NOT_SENT', 'JWT_NOT_YET_VALID'),
  (49, '2026-12-09 06:40:03', 'SKU-117959', 'cart-3', 'RESERVED', NULL),
  (50, '2026-12-09 06:40:04', 'SKU-684318', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED');

INSERT INTO cart_reservations (id, requested_at, sku, cart_host, status, error_code) VALUES
  (51, '2026-12-09 06:40:09', 'SKU-486762', 'cart-1', 'RESERVED', NULL),
  (52, '2026-12-09 06:40:28', 'SKU-451960', 'cart-3', 'RESERVED', NULL),
  (53, '2026-12-09 06:41:28', 'SKU-651661', 'cart-3', 'RESERVED', NULL),
  (54, '2026-12-09 06:44:13', 'SKU-260930', 'cart-1', 'RESERVED', NULL),
  (55, '2026-12-09 06:44:42', 'SKU-651661', 'cart-1', 'RESERVED', NULL),
  (56, '2026-12-09 06:46:20', 'SKU-651661', 'cart-3', 'RESERVED', NULL),
  (57, '2026-12-09 06:47:17', 'SKU-298238', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (58, '2026-12-09 06:50:01', 'SKU-913765', 'cart-1', 'RESERVED', NULL),
  (59, '2026-12-09 06:50:07', 'SKU-684318', 'cart-1', 'RESERVED', NULL),
  (60, '2026-12-09 06:50:16', 'SKU-921038', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (61, '2026-12-09 06:51:14', 'SKU-431181', 'cart-1', 'RESERVED', NULL),
  (62, '2026-12-09 06:51:16', 'SKU-587067', 'cart-1', 'RESERVED', NULL),
  (63, '2026-12-09 06:52:49', 'SKU-710007', 'cart-3', 'RESERVED', NULL),
  (64, '2026-12-09 06:53:07', 'SKU-626045', 'cart-3', 'RESERVED', NULL),
  (65, '2026-12-09 06:53:48', 'SKU-495659', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (66, '2026-12-09 06:54:23', 'SKU-444263', 'cart-3', 'RESERVED', NULL),
  (67, '2026-12-09 06:56:10', 'SKU-560803', 'cart-1', 'RESERVED', NULL),
  (68, '2026-12-09 06:57:04', 'SKU-896921', 'cart-1', 'RESERVED', NULL),
  (69, '2026-12-09 06:57:36', 'SKU-665500', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (70, '2026-12-09 06:58:09', 'SKU-422638', 'cart-3', 'RESERVED', NULL),
  (71, '2026-12-09 06:58:17', 'SKU-977159', 'cart-1', 'RESERVED', NULL),
  (72, '2026-12-09 06:58:50', 'SKU-141729', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (73, '2026-12-09 06:59:12', 'SKU-422638', 'cart-3', 'RESERVED', NULL),
  (74, '2026-12-09 06:59:45', 'SKU-231775', 'cart-3', 'RESERVED', NULL),
  (75, '2026-12-09 07:00:51', 'SKU-626045', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED');

INSERT INTO cart_reservations (id, requested_at, sku, cart_host, status, error_code) VALUES
  (76, '2026-12-09 07:00:52', 'SKU-783835', 'cart-1', 'RESERVED', NULL),
  (77, '2026-12-09 07:00:55', 'SKU-444263', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (78, '2026-12-09 07:02:25', 'SKU-486762', 'cart-1', 'RESERVED', NULL),
  (79, '2026-12-09 07:03:15', 'SKU-431181', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (80, '2026-12-09 07:04:34', 'SKU-783835', 'cart-3', 'RESERVED', NULL),
  (81, '2026-12-09 07:05:04', 'SKU-560803', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (82, '2026-12-09 07:05:15', 'SKU-117959', 'cart-3', 'RESERVED', NULL),
  (83, '2026-12-09 07:06:03', 'SKU-457459', 'cart-1', 'RESERVED', NULL),
  (84, '2026-12-09 07:07:55', 'SKU-457459', 'cart-1', 'RESERVED', NULL),
  (85, '2026-12-09 07:08:10', 'SKU-141729', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (86, '2026-12-09 07:10:05', 'SKU-921038', 'cart-3', 'RESERVED', NULL),
  (87, '2026-12-09 07:11:25', 'SKU-486762', 'cart-2', 'NOT_SENT', 'JWT_NOT_YET_VALID'),
  (88, '2026-12-09 07:11:27', 'SKU-234567', 'cart-1', 'RESERVED', NULL),
  (89, '2026-12-09 07:12:26', 'SKU-828134', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (90, '2026-12-09 07:13:28', 'SKU-710007', 'cart-3', 'RESERVED', NULL),
  (91, '2026-12-09 07:13:31', 'SKU-921038', 'cart-1', 'RESERVED', NULL),
  (92, '2026-12-09 07:14:03', 'SKU-437407', 'cart-3', 'RESERVED', NULL),
  (93, '2026-12-09 07:14:07', 'SKU-451960', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (94, '2026-12-09 07:14:09', 'SKU-501681', 'cart-2', 'NOT_SENT', 'JWT_NOT_YET_VALID'),
  (95, '2026-12-09 07:14:41', 'SKU-298238', 'cart-1', 'RESERVED', NULL),
  (96, '2026-12-09 07:16:00', 'SKU-234567', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (97, '2026-12-09 07:16:46', 'SKU-651661', 'cart-1', 'RESERVED', NULL),
  (98, '2026-12-09 07:17:43', 'SKU-495659', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (99, '2026-12-09 07:18:26', 'SKU-437407', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (100, '2026-12-09 07:21:56', 'SKU-117959', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED');

INSERT INTO cart_reservations (id, requested_at, sku, cart_host, status, error_code) VALUES
  (101, '2026-12-09 07:22:42', 'SKU-798476', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (102, '2026-12-09 07:23:01', 'SKU-896921', 'cart-3', 'RESERVED', NULL),
  (103, '2026-12-09 07:25:50', 'SKU-968354', 'cart-3', 'RESERVED', NULL),
  (104, '2026-12-09 07:27:27', 'SKU-234567', 'cart-3', 'RESERVED', NULL),
  (105, '2026-12-09 07:28:08', 'SKU-828134', 'cart-3', 'RESERVED', NULL),
  (106, '2026-12-09 07:28:26', 'SKU-692827', 'cart-1', 'RESERVED', NULL),
  (107, '2026-12-09 07:28:46', 'SKU-665500', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (108, '2026-12-09 07:28:52', 'SKU-501681', 'cart-2', 'REJECTED', 'REQUEST_EXPIRED'),
  (109, '2026-12-09 07:29:10', 'SKU-320898', 'cart-1', 'RESERVED', NULL),
  (110, '2026-12-09 07:29:30', 'SKU-895547', 'cart-1', 'RESERVED', NULL),
  (111, '2026-12-09 07:29:48', 'SKU-470209', 'cart-3', 'RESERVED', NULL),
  (112, '2026-12-09 07:29:54', 'SKU-176806', 'cart-1', 'RESERVED', NULL);
