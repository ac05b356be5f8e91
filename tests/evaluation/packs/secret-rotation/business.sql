-- secret-rotation business data: database credential rotation policies and runs, configuration changes,
-- deploy history and a sample of orders of 2026-12-08 03:00-04:30 UTC. Times are UTC.
-- SQLite- and MariaDB-compatible.

CREATE TABLE rotation_policies (
  id INTEGER PRIMARY KEY,
  secret_path VARCHAR(96) NOT NULL,
  db_user VARCHAR(32) NOT NULL,
  db_host VARCHAR(32) NOT NULL,
  schedule VARCHAR(32) NOT NULL,
  old_password_grace VARCHAR(8) NOT NULL,
  reload_strategy VARCHAR(16) NOT NULL,
  consumers VARCHAR(128) NOT NULL,
  enabled INTEGER NOT NULL,
  updated_at DATETIME NOT NULL,
  change_id VARCHAR(16)
);

INSERT INTO rotation_policies (id, secret_path, db_user, db_host, schedule, old_password_grace, reload_strategy, consumers, enabled, updated_at, change_id) VALUES
  (1, 'kv/prod/payments-db/payments_app', 'payments_app', 'payments-db', 'weekly Tue 03:30', '24h', 'hook', 'payment-service', 1, '2026-09-02 10:14:00', 'CHG-72210'),
  (2, 'kv/prod/orders-db/fulfil_app', 'fulfil_app', 'orders-db', 'monthly 1st 04:00', '24h', 'restart', 'fulfillment-worker', 1, '2026-10-28 16:40:12', 'CHG-73306'),
  (3, 'kv/prod/orders-db/report_ro', 'report_ro', 'orders-db', 'monthly 1st 04:15', '24h', 'restart', 'reporting-etl', 1, '2026-10-28 16:40:12', 'CHG-73306'),
  (4, 'kv/prod/orders-db/orders_app', 'orders_app', 'orders-db', 'weekly Tue 03:30', '5m', 'hook', 'order-service', 1, '2026-12-07 15:22:10', 'CHG-74410');

CREATE TABLE credential_rotations (
  id INTEGER PRIMARY KEY,
  run_id VARCHAR(24) NOT NULL,
  secret_path VARCHAR(96) NOT NULL,
  db_user VARCHAR(32) NOT NULL,
  new_version INTEGER NOT NULL,
  rotated_at DATETIME NOT NULL,
  old_password_discarded_at DATETIME,
  status VARCHAR(16) NOT NULL
);

INSERT INTO credential_rotations (id, run_id, secret_path, db_user, new_version, rotated_at, old_password_discarded_at, status) VALUES
  (1, 'RR-20261110-0330', 'kv/prod/payments-db/payments_app', 'payments_app', 14, '2026-11-10 03:30:02', '2026-11-11 03:30:00', 'COMPLETED'),
  (2, 'RR-20261117-0330', 'kv/prod/payments-db/payments_app', 'payments_app', 15, '2026-11-17 03:30:02', '2026-11-18 03:30:00', 'COMPLETED'),
  (3, 'RR-20261124-0330', 'kv/prod/payments-db/payments_app', 'payments_app', 16, '2026-11-24 03:30:01', '2026-11-25 03:30:00', 'COMPLETED'),
  (4, 'RR-20261201-0330', 'kv/prod/payments-db/payments_app', 'payments_app', 17, '2026-12-01 03:30:02', '2026-12-02 03:30:00', 'COMPLETED'),
  (5, 'RR-20261201-0400', 'kv/prod/orders-db/fulfil_app', 'fulfil_app', 9, '2026-12-01 04:00:03', '2026-12-02 04:00:00', 'COMPLETED'),
  (6, 'RR-20261201-0415', 'kv/prod/orders-db/report_ro', 'report_ro', 9, '2026-12-01 04:15:02', '2026-12-02 04:15:00', 'COMPLETED'),
  (7, 'RR-20261208-0330', 'kv/prod/payments-db/payments_app', 'payments_app', 18, '2026-12-08 03:30:01', NULL, 'GRACE'),
  (8, 'RR-20261208-0330', 'kv/prod/orders-db/orders_app', 'orders_app', 42, '2026-12-08 03:30:03', '2026-12-08 03:35:05', 'COMPLETED');

CREATE TABLE config_changes (
  id INTEGER PRIMARY KEY,
  change_id VARCHAR(16) NOT NULL,
  service VARCHAR(64) NOT NULL,
  config_key VARCHAR(64) NOT NULL,
  old_value VARCHAR(64),
  new_value VARCHAR(64),
  changed_by VARCHAR(32) NOT NULL,
  reason VARCHAR(255),
  applied_at DATETIME NOT NULL
);

INSERT INTO config_changes (id, change_id, service, config_key, old_value, new_value, changed_by, reason, applied_at) VALUES
  (1, 'CHG-74371', 'order-service', 'spring.datasource.hikari.maximum-pool-size', '15', '20', 'p.nowak', 'Black Friday follow-up: pool headroom', '2026-12-02 11:05:40'),
  (2, 'CHG-74402', 'api-gateway', 'timeouts.order-service', '8s', '6s', 'r.silva', 'fail fast instead of piling up', '2026-12-05 14:31:09'),
  (3, 'CHG-74410', 'db-cred-rotator', 'policy.orders-db/orders_app', 'manual rotation (quarterly, with order-service restart)', 'automatic weekly Tue 03:30, template default (grace 5m, reload hook)', 'k.ito', 'SEC-212 audit finding: automate rotation of all application DB users', '2026-12-07 15:22:10'),
  (4, 'CHG-74418', 'orders-db', 'long_query_time', '2', '1', 'd.meyer', 'catch more slow reporting queries', '2026-12-08 02:48:33');

CREATE TABLE deployments (
  id INTEGER PRIMARY KEY,
  change_id VARCHAR(16) NOT NULL,
  service VARCHAR(64) NOT NULL,
  version VARCHAR(16) NOT NULL,
  previous_version VARCHAR(16) NOT NULL,
  status VARCHAR(16) NOT NULL,
  deployed_by VARCHAR(32) NOT NULL,
  description VARCHAR(255),
  started_at DATETIME NOT NULL,
  finished_at DATETIME NOT NULL
);

INSERT INTO deployments (id, change_id, service, version, previous_version, status, deployed_by, description, started_at, finished_at) VALUES
  (1, 'CHG-74350', 'payment-service', 'v6.4.2', 'v6.4.1', 'succeeded', 'ci-bot', 'Adyen API v71', '2026-12-03 09:12:10', '2026-12-03 09:15:48'),
  (2, 'CHG-74395', 'fulfillment-worker', 'v2.9.0', 'v2.8.3', 'succeeded', 'ci-bot', 'DHL label v2 API', '2026-12-04 13:40:00', '2026-12-04 13:41:30'),
  (3, 'CHG-74415', 'order-service', 'v3.12.0', 'v3.11.4', 'succeeded', 'ci-bot', 'Gift message on orders; Spring Boot 3.3.6', '2026-12-08 03:10:40', '2026-12-08 03:12:35');

CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  order_id VARCHAR(16) NOT NULL,
  status VARCHAR(16) NOT NULL,
  amount_eur DECIMAL(10, 2) NOT NULL,
  created_at DATETIME NOT NULL
);

INSERT INTO orders (id, order_id, status, amount_eur, created_at) VALUES
  (1, 'ord_5508103', 'CREATED', 63.11, '2026-12-08 03:00:06'),
  (2, 'ord_5508117', 'CREATED', 25.01, '2026-12-08 03:03:08'),
  (3, 'ord_5508129', 'CREATED', 118.41, '2026-12-08 03:06:02'),
  (4, 'ord_5508143', 'CREATED', 50.66, '2026-12-08 03:09:16'),
  (5, 'ord_5508157', 'CREATED', 96.01, '2026-12-08 03:12:25'),
  (6, 'ord_5508171', 'CREATED', 155.75, '2026-12-08 03:15:21'),
  (7, 'ord_5508188', 'CREATED', 177.34, '2026-12-08 03:18:27'),
  (8, 'ord_5508198', 'CREATED', 118.34, '2026-12-08 03:21:13'),
  (9, 'ord_5508206', 'CREATED', 18.12, '2026-12-08 03:24:41'),
  (10, 'ord_5508221', 'CREATED', 65.28, '2026-12-08 03:27:28'),
  (11, 'ord_5508234', 'CREATED', 52.27, '2026-12-08 03:30:37'),
  (12, 'ord_5508245', 'CREATED', 63.42, '2026-12-08 03:33:40'),
  (13, 'ord_5508259', 'CREATED', 34.99, '2026-12-08 03:36:55'),
  (14, 'ord_5508277', 'CREATED', 95.68, '2026-12-08 03:41:57');
