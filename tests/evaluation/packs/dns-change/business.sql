-- dns-change business data: internal DNS change history, IP inventory, deploy history and orders of
-- 2026-12-02 10:00-11:30 UTC. Times are UTC. SQLite- and MariaDB-compatible.

CREATE TABLE dns_changes (
  id INTEGER PRIMARY KEY,
  change_id VARCHAR(16) NOT NULL,
  record_name VARCHAR(128) NOT NULL,
  record_type VARCHAR(8) NOT NULL,
  old_value VARCHAR(128),
  new_value VARCHAR(128) NOT NULL,
  ttl INTEGER NOT NULL,
  changed_at DATETIME NOT NULL,
  changed_by VARCHAR(64) NOT NULL,
  description VARCHAR(255)
);

INSERT INTO dns_changes (id, change_id, record_name, record_type, old_value, new_value, ttl, changed_at, changed_by, description) VALUES
  (1, 'DNS-2271', 'search-api.internal.corp', 'CNAME', 'search-lb-1.internal.corp', 'search-lb-2.internal.corp', 300, '2026-11-27 09:14:22', 'dns-sync run #861', 'Move search API to new load balancer'),
  (2, 'DNS-2284', 'cache-sessions.internal.corp', 'CNAME', 'redis-sess-a.internal.corp', 'redis-sess-b.internal.corp', 60, '2026-12-01 16:02:10', 'dns-sync run #879', 'Sessions Redis failover drill'),
  (3, 'DNS-2290', 'reports-api.internal.corp', 'A', '10.20.4.77', '10.20.8.77', 300, '2026-12-02 10:39:53', 'dns-sync run #884', 'INFRA-1502 terraform-dns v2 migration: reports-api moved to subnet 10.20.8.0/24'),
  (4, 'DNS-2291', 'orders-db.internal.corp', 'A', '10.20.4.15', '10.20.9.15', 300, '2026-12-02 10:39:58', 'dns-sync run #884', 'INFRA-1502 terraform-dns v2 migration: records generated from the host inventory module');

CREATE TABLE ip_inventory (
  id INTEGER PRIMARY KEY,
  ip_address VARCHAR(15) NOT NULL,
  hostname VARCHAR(64) NOT NULL,
  subnet VARCHAR(18) NOT NULL,
  role VARCHAR(64) NOT NULL,
  status VARCHAR(16) NOT NULL,
  updated_at DATETIME NOT NULL
);

INSERT INTO ip_inventory (id, ip_address, hostname, subnet, role, status, updated_at) VALUES
  (1, '10.20.4.15', 'orders-db-01', '10.20.4.0/24', 'mysql primary (orders)', 'ACTIVE', '2026-06-03 11:20:00'),
  (2, '10.20.4.16', 'orders-db-02', '10.20.4.0/24', 'mysql replica (orders)', 'ACTIVE', '2026-06-03 11:20:00'),
  (3, '10.20.4.31', 'payments-db-01', '10.20.4.0/24', 'mysql primary (payments)', 'ACTIVE', '2026-05-20 08:00:00'),
  (4, '10.20.8.77', 'reports-api-03', '10.20.8.0/24', 'reports api', 'ACTIVE', '2026-11-30 14:10:00'),
  (5, '10.20.4.77', 'reports-api-01', '10.20.4.0/24', 'reports api', 'DRAINING', '2026-11-30 14:10:00'),
  (6, '10.20.9.15', 'orders-db-legacy', '10.20.9.0/24', 'mysql primary (orders), dc1-legacy', 'DECOMMISSIONED', '2026-09-14 17:45:00'),
  (7, '10.20.9.16', 'orders-db-legacy-r', '10.20.9.0/24', 'mysql replica (orders), dc1-legacy', 'DECOMMISSIONED', '2026-09-14 17:45:00');

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
  (1, 'order-service', 'v8.21.0', 'v8.20.3', '2026-11-30 13:40:02', 'deploy-bot', 'CHG-51102', 'Split payment capture', 'SUCCEEDED'),
  (2, 'api-gateway', '2.6.1', '2.6.0', '2026-12-01 09:55:31', 'deploy-bot', 'CHG-51117', 'HTTP/2 upstream keepalive', 'SUCCEEDED'),
  (3, 'fulfillment-worker', 'v1.14.0', 'v1.13.2', '2026-12-02 10:12:40', 'deploy-bot', 'CHG-51129', 'GLS carrier integration, go 1.23', 'SUCCEEDED');

CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  order_id VARCHAR(20) NOT NULL,
  customer_id VARCHAR(16) NOT NULL,
  total DECIMAL(10,2) NOT NULL,
  currency VARCHAR(3) NOT NULL,
  status VARCHAR(16) NOT NULL,
  created_at DATETIME NOT NULL,
  fulfillment_status VARCHAR(16) NOT NULL
);

INSERT INTO orders (id, order_id, customer_id, total, currency, status, created_at, fulfillment_status) VALUES
  (1, 'ORD-5503101', 'C840719', 350.20, 'EUR', 'PAID', '2026-12-02 10:00:17', 'REQUESTED'),
  (2, 'ORD-5503102', 'C745711', 98.37, 'EUR', 'PAID', '2026-12-02 10:01:27', 'REQUESTED'),
  (3, 'ORD-5503103', 'C431533', 144.71, 'EUR', 'PAID', '2026-12-02 10:02:12', 'REQUESTED'),
  (4, 'ORD-5503104', 'C361288', 358.51, 'EUR', 'PAID', '2026-12-02 10:03:11', 'REQUESTED'),
  (5, 'ORD-5503105', 'C675204', 252.15, 'EUR', 'PAID', '2026-12-02 10:03:50', 'REQUESTED'),
  (6, 'ORD-5503106', 'C431220', 254.21, 'EUR', 'PAID', '2026-12-02 10:04:51', 'REQUESTED'),
  (7, 'ORD-5503107', 'C645961', 40.83, 'EUR', 'PAID', '2026-12-02 10:05:50', 'REQUESTED'),
  (8, 'ORD-5503108', 'C375872', 231.31, 'EUR', 'PAID', '2026-12-02 10:06:29', 'REQUESTED'),
  (9, 'ORD-5503109', 'C514509', 269.97, 'EUR', 'PAID', '2026-12-02 10:07:13', 'REQUESTED'),
  (10, 'ORD-5503110', 'C796057', 80.42, 'EUR', 'PAID', '2026-12-02 10:08:17', 'REQUESTED'),
  (11, 'ORD-5503111', 'C691421', 208.09, 'EUR', 'PAID', '2026-12-02 10:08:55', 'REQUESTED'),
  (12, 'ORD-5503112', 'C603004', 317.66, 'EUR', 'PAID', '2026-12-02 10:09:44', 'REQUESTED'),
  (13, 'ORD-5503113', 'C536535', 284.03, 'EUR', 'PAID', '2026-12-02 10:10:35', 'REQUESTED'),
  (14, 'ORD-5503114', 'C719791', 338.45, 'EUR', 'PAID', '2026-12-02 10:11:14', 'REQUESTED'),
  (15, 'ORD-5503115', 'C983369', 257.30, 'EUR', 'PAID', '2026-12-02 10:12:12', 'REQUESTED'),
  (16, 'ORD-5503116', 'C731340', 149.54, 'EUR', 'PAID', '2026-12-02 10:13:11', 'REQUESTED'),
  (17, 'ORD-5503117', 'C392816', 310.35, 'EUR', 'PAID', '2026-12-02 10:14:18', 'REQUESTED'),
  (18, 'ORD-5503118', 'C854242', 92.74, 'EUR', 'PAID', '2026-12-02 10:14:57', 'REQUESTED'),
  (19, 'ORD-5503119', 'C594483', 99.12, 'EUR', 'PAID', '2026-12-02 10:15:58', 'REQUESTED'),
  (20, 'ORD-5503120', 'C535175', 70.31, 'EUR', 'PAID', '2026-12-02 10:16:40', 'REQUESTED'),
  (21, 'ORD-5503121', 'C146415', 183.79, 'EUR', 'PAID', '2026-12-02 10:17:40', 'REQUESTED'),
  (22, 'ORD-5503122', 'C372663', 332.33, 'EUR', 'PAID', '2026-12-02 10:18:24', 'REQUESTED'),
  (23, 'ORD-5503123', 'C626571', 44.96, 'EUR', 'PAID', '2026-12-02 10:19:13', 'REQUESTED'),
  (24, 'ORD-5503124', 'C979414', 273.92, 'EUR', 'PAID', '2026-12-02 10:20:14', 'REQUESTED'),
  (25, 'ORD-5503125', 'C102292', 355.11, 'EUR', 'PAID', '2026-12-02 10:21:02', 'REQUESTED');

INSERT INTO orders (id, order_id, customer_id, total, currency, status, created_at, fulfillment_status) VALUES
  (26, 'ORD-5503126', 'C885295', 182.28, 'EUR', 'PAID', '2026-12-02 10:22:09', 'REQUESTED'),
  (27, 'ORD-5503127', 'C715522', 349.03, 'EUR', 'PAID', '2026-12-02 10:22:53', 'REQUESTED'),
  (28, 'ORD-5503128', 'C358152', 234.50, 'EUR', 'PAID', '2026-12-02 10:23:39', 'REQUESTED'),
  (29, 'ORD-5503129', 'C414529', 189.24, 'EUR', 'PAID', '2026-12-02 10:24:31', 'REQUESTED'),
  (30, 'ORD-5503130', 'C928180', 231.24, 'EUR', 'PAID', '2026-12-02 10:25:16', 'REQUESTED'),
  (31, 'ORD-5503131', 'C222632', 291.03, 'EUR', 'PAID', '2026-12-02 10:26:17', 'REQUESTED'),
  (32, 'ORD-5503132', 'C647459', 354.83, 'EUR', 'PAID', '2026-12-02 10:26:55', 'REQUESTED'),
  (33, 'ORD-5503133', 'C129394', 242.06, 'EUR', 'PAID', '2026-12-02 10:28:00', 'REQUESTED'),
  (34, 'ORD-5503134', 'C519760', 92.93, 'EUR', 'PAID', '2026-12-02 10:29:05', 'REQUESTED'),
  (35, 'ORD-5503135', 'C888013', 175.32, 'EUR', 'PAID', '2026-12-02 10:29:57', 'REQUESTED'),
  (36, 'ORD-5503136', 'C148856', 274.13, 'EUR', 'PAID', '2026-12-02 10:30:47', 'REQUESTED'),
  (37, 'ORD-5503137', 'C421380', 179.71, 'EUR', 'PAID', '2026-12-02 10:31:57', 'REQUESTED'),
  (38, 'ORD-5503138', 'C716679', 314.40, 'EUR', 'PAID', '2026-12-02 10:32:36', 'REQUESTED'),
  (39, 'ORD-5503139', 'C530033', 209.46, 'EUR', 'PAID', '2026-12-02 10:33:42', 'REQUESTED'),
  (40, 'ORD-5503140', 'C159456', 362.17, 'EUR', 'PAID', '2026-12-02 10:34:25', 'REQUESTED'),
  (41, 'ORD-5503141', 'C510800', 295.20, 'EUR', 'PAID', '2026-12-02 10:35:00', 'REQUESTED'),
  (42, 'ORD-5503142', 'C456078', 310.97, 'EUR', 'PAID', '2026-12-02 10:35:37', 'REQUESTED'),
  (43, 'ORD-5503143', 'C796779', 124.82, 'EUR', 'PAID', '2026-12-02 10:36:35', 'REQUESTED'),
  (44, 'ORD-5503144', 'C211625', 311.04, 'EUR', 'PAID', '2026-12-02 10:37:40', 'REQUESTED'),
  (45, 'ORD-5503145', 'C673949', 186.31, 'EUR', 'PAID', '2026-12-02 10:38:43', 'REQUESTED'),
  (46, 'ORD-5503146', 'C586152', 173.37, 'EUR', 'PAID', '2026-12-02 10:39:20', 'REQUESTED'),
  (47, 'ORD-5503147', 'C682285', 265.82, 'EUR', 'PAID', '2026-12-02 10:40:21', 'REQUESTED'),
  (48, 'ORD-5503148', 'C652983', 20.92, 'EUR', 'PAID', '2026-12-02 10:41:01', 'REQUESTED'),
  (49, 'ORD-5503149', 'C576733', 259.72, 'EUR', 'PAID', '2026-12-02 10:41:41', 'REQUESTED'),
  (50, 'ORD-5503150', 'C510143', 96.26, 'EUR', 'PAID', '2026-12-02 10:42:50', 'REQUESTED');

INSERT INTO orders (id, order_id, customer_id, total, currency, status, created_at, fulfillment_status) VALUES
  (51, 'ORD-5503151', 'C978008', 246.92, 'EUR', 'PAID', '2026-12-02 10:43:26', 'REQUESTED'),
  (52, 'ORD-5503152', 'C432763', 118.81, 'EUR', 'PAID', '2026-12-02 10:44:12', 'REQUESTED'),
  (53, 'ORD-5503153', 'C870686', 94.39, 'EUR', 'PAID', '2026-12-02 10:45:17', 'PENDING'),
  (54, 'ORD-5503154', 'C188559', 97.55, 'EUR', 'PAID', '2026-12-02 10:46:10', 'PENDING'),
  (55, 'ORD-5503155', 'C275920', 58.84, 'EUR', 'PAID', '2026-12-02 10:46:55', 'PENDING'),
  (56, 'ORD-5503156', 'C688939', 264.80, 'EUR', 'PAID', '2026-12-02 10:47:40', 'PENDING'),
  (57, 'ORD-5503157', 'C931461', 60.61, 'EUR', 'PAID', '2026-12-02 10:48:20', 'PENDING'),
  (58, 'ORD-5503158', 'C814357', 203.79, 'EUR', 'PAID', '2026-12-02 10:50:20', 'PENDING'),
  (59, 'ORD-5503159', 'C447744', 44.36, 'EUR', 'PAID', '2026-12-02 10:50:56', 'PENDING'),
  (60, 'ORD-5503160', 'C825533', 362.94, 'EUR', 'PAID', '2026-12-02 10:52:21', 'PENDING'),
  (61, 'ORD-5503161', 'C530127', 247.61, 'EUR', 'PAID', '2026-12-02 10:53:31', 'PENDING'),
  (62, 'ORD-5503162', 'C662133', 75.37, 'EUR', 'PAID', '2026-12-02 10:56:23', 'PENDING'),
  (63, 'ORD-5503163', 'C395282', 368.84, 'EUR', 'PAID', '2026-12-02 10:57:04', 'PENDING'),
  (64, 'ORD-5503164', 'C944681', 192.42, 'EUR', 'PAID', '2026-12-02 10:58:03', 'PENDING'),
  (65, 'ORD-5503165', 'C478583', 77.27, 'EUR', 'PAID', '2026-12-02 10:59:39', 'PENDING'),
  (66, 'ORD-5503166', 'C650074', 328.91, 'EUR', 'PAID', '2026-12-02 11:05:10', 'PENDING'),
  (67, 'ORD-5503167', 'C696856', 43.70, 'EUR', 'PAID', '2026-12-02 11:13:54', 'PENDING'),
  (68, 'ORD-5503168', 'C994267', 243.32, 'EUR', 'PAID', '2026-12-02 11:29:00', 'PENDING');
