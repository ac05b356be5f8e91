-- kafka-rebalance-storm business data: configuration changes, deploy history, consumer group snapshots of the
-- inventory-events topic, the warehouse receipt import runs and the checkout reservations rejected for stock.
-- Times are UTC. SQLite- and MariaDB-compatible.

CREATE TABLE config_changes (
  id INTEGER PRIMARY KEY,
  change_id VARCHAR(16) NOT NULL,
  target VARCHAR(64) NOT NULL,
  config_key VARCHAR(96) NOT NULL,
  old_value VARCHAR(64),
  new_value VARCHAR(64),
  changed_at DATETIME NOT NULL,
  changed_by VARCHAR(32) NOT NULL,
  reason VARCHAR(255)
);

INSERT INTO config_changes (id, change_id, target, config_key, old_value, new_value, changed_at, changed_by, reason) VALUES
  (1, 'CFG-7690', 'search-indexer', 'kafka.consumer.max.poll.records', '500', '1000', '2026-12-08 14:20:41', 'j.okafor', 'bigger bulk requests to elasticsearch'),
  (2, 'CFG-7712', 'kafka (topic clickstream)', 'retention.ms', '604800000', '259200000', '2026-12-10 08:12:03', 'kafka-ops', 'clickstream: keep 3 days instead of 7 (disk budget)'),
  (3, 'CFG-7729', 'storefront-api', 'product_page_cache.enabled', 'false', 'true', '2026-12-10 08:24:10', 'deploy-bot', 'enabled with storefront-api v3.9.0 (ttl 20s)'),
  (4, 'CFG-7731', 'inventory-projector', 'kafka.consumer.max.poll.interval.ms', '300000', '30000', '2026-12-10 08:31:12', 'a.keller', 'detect hung consumers faster (INC-2291 follow-up); config revision 58, rolling restart'),
  (5, 'CFG-7735', 'order-service', 'logging.level.payments', 'DEBUG', 'INFO', '2026-12-10 08:52:30', 'm.ruiz', 'debug logging no longer needed');

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
  (1, 'inventory-projector', 'v2.6.0', 'v2.5.4', '2026-12-03 10:14:02', 'deploy-bot', 'CHG-55120', 'Projection of StockAdjusted events from WH-MUC', 'SUCCEEDED'),
  (2, 'search-indexer', 'v1.18.2', 'v1.18.1', '2026-12-08 14:05:19', 'deploy-bot', 'CHG-55201', 'Elasticsearch client 8.15', 'SUCCEEDED'),
  (3, 'order-service', 'v7.3.1', 'v7.3.0', '2026-12-09 16:40:55', 'deploy-bot', 'CHG-55248', 'Void payment authorisation when reservation fails', 'SUCCEEDED'),
  (4, 'storefront-api', 'v3.9.0', 'v3.8.4', '2026-12-10 08:24:10', 'deploy-bot', 'CHG-55263', 'Product page cache (redis, ttl 20s), new order history page', 'SUCCEEDED');

CREATE TABLE consumer_group_snapshots (
  id INTEGER PRIMARY KEY,
  group_id VARCHAR(64) NOT NULL,
  topic VARCHAR(64) NOT NULL,
  taken_at DATETIME NOT NULL,
  state VARCHAR(24) NOT NULL,
  members INTEGER NOT NULL,
  generation INTEGER NOT NULL,
  total_lag INTEGER NOT NULL
);

INSERT INTO consumer_group_snapshots (id, group_id, topic, taken_at, state, members, generation, total_lag) VALUES
  (1, 'inventory-projector', 'inventory-events', '2026-12-10 08:00:00', 'Stable', 3, 212, 97),
  (2, 'search-indexer', 'inventory-events', '2026-12-10 08:00:00', 'Stable', 2, 57, 22),
  (3, 'inventory-projector', 'inventory-events', '2026-12-10 08:05:00', 'Stable', 3, 212, 169),
  (4, 'search-indexer', 'inventory-events', '2026-12-10 08:05:00', 'Stable', 2, 57, 136),
  (5, 'inventory-projector', 'inventory-events', '2026-12-10 08:10:00', 'Stable', 3, 212, 46),
  (6, 'search-indexer', 'inventory-events', '2026-12-10 08:10:00', 'Stable', 2, 57, 53),
  (7, 'inventory-projector', 'inventory-events', '2026-12-10 08:15:00', 'Stable', 3, 212, 108),
  (8, 'search-indexer', 'inventory-events', '2026-12-10 08:15:00', 'Stable', 2, 57, 59),
  (9, 'inventory-projector', 'inventory-events', '2026-12-10 08:20:00', 'Stable', 3, 212, 64),
  (10, 'search-indexer', 'inventory-events', '2026-12-10 08:20:00', 'Stable', 2, 57, 53),
  (11, 'inventory-projector', 'inventory-events', '2026-12-10 08:25:00', 'Stable', 3, 212, 118),
  (12, 'search-indexer', 'inventory-events', '2026-12-10 08:25:00', 'Stable', 2, 57, 103),
  (13, 'inventory-projector', 'inventory-events', '2026-12-10 08:30:00', 'Stable', 3, 212, 151),
  (14, 'search-indexer', 'inventory-events', '2026-12-10 08:30:00', 'Stable', 2, 57, 61),
  (15, 'inventory-projector', 'inventory-events', '2026-12-10 08:35:00', 'Stable', 3, 218, 54),
  (16, 'search-indexer', 'inventory-events', '2026-12-10 08:35:00', 'Stable', 2, 57, 63),
  (17, 'inventory-projector', 'inventory-events', '2026-12-10 08:40:00', 'Stable', 3, 218, 244),
  (18, 'search-indexer', 'inventory-events', '2026-12-10 08:40:00', 'Stable', 2, 57, 65),
  (19, 'inventory-projector', 'inventory-events', '2026-12-10 08:45:00', 'PreparingRebalance', 3, 223, 28122),
  (20, 'search-indexer', 'inventory-events', '2026-12-10 08:45:00', 'Stable', 2, 57, 8880),
  (21, 'inventory-projector', 'inventory-events', '2026-12-10 08:50:00', 'CompletingRebalance', 3, 228, 31307),
  (22, 'search-indexer', 'inventory-events', '2026-12-10 08:50:00', 'Stable', 2, 57, 109),
  (23, 'inventory-projector', 'inventory-events', '2026-12-10 08:55:00', 'PreparingRebalance', 3, 233, 34648),
  (24, 'search-indexer', 'inventory-events', '2026-12-10 08:55:00', 'Stable', 2, 57, 82),
  (25, 'inventory-projector', 'inventory-events', '2026-12-10 09:00:00', 'CompletingRebalance', 3, 238, 37982),
  (26, 'search-indexer', 'inventory-events', '2026-12-10 09:00:00', 'Stable', 2, 57, 22),
  (27, 'inventory-projector', 'inventory-events', '2026-12-10 09:05:00', 'PreparingRebalance', 3, 243, 41464),
  (28, 'search-indexer', 'inventory-events', '2026-12-10 09:05:00', 'Stable', 2, 57, 56),
  (29, 'inventory-projector', 'inventory-events', '2026-12-10 09:10:00', 'CompletingRebalance', 3, 248, 44858),
  (30, 'search-indexer', 'inventory-events', '2026-12-10 09:10:00', 'Stable', 2, 57, 126),
  (31, 'inventory-projector', 'inventory-events', '2026-12-10 09:15:00', 'PreparingRebalance', 3, 253, 48454),
  (32, 'search-indexer', 'inventory-events', '2026-12-10 09:15:00', 'Stable', 2, 57, 127),
  (33, 'inventory-projector', 'inventory-events', '2026-12-10 09:20:00', 'CompletingRebalance', 3, 258, 51957),
  (34, 'search-indexer', 'inventory-events', '2026-12-10 09:20:00', 'Stable', 2, 57, 75),
  (35, 'inventory-projector', 'inventory-events', '2026-12-10 09:25:00', 'PreparingRebalance', 3, 263, 55639),
  (36, 'search-indexer', 'inventory-events', '2026-12-10 09:25:00', 'Stable', 2, 57, 102),
  (37, 'inventory-projector', 'inventory-events', '2026-12-10 09:30:00', 'CompletingRebalance', 3, 268, 59313),
  (38, 'search-indexer', 'inventory-events', '2026-12-10 09:30:00', 'Stable', 2, 57, 129);

CREATE TABLE warehouse_feed_runs (
  id INTEGER PRIMARY KEY,
  started_at DATETIME NOT NULL,
  publish_seconds DECIMAL(8,1) NOT NULL,
  events_published INTEGER NOT NULL,
  status VARCHAR(16) NOT NULL,
  projector_drain_seconds INTEGER
);

INSERT INTO warehouse_feed_runs (id, started_at, publish_seconds, events_published, status, projector_drain_seconds) VALUES
  (1, '2026-12-03 08:40:08', 93.1, 24462, 'SUCCEEDED', 375),
  (2, '2026-12-04 08:40:09', 98.0, 26069, 'SUCCEEDED', 480),
  (3, '2026-12-05 08:40:01', 95.1, 25832, 'SUCCEEDED', 354),
  (4, '2026-12-06 08:40:04', 89.7, 22882, 'SUCCEEDED', 453),
  (5, '2026-12-07 08:40:08', 92.9, 24872, 'SUCCEEDED', 491),
  (6, '2026-12-08 08:40:01', 95.7, 25034, 'SUCCEEDED', 452),
  (7, '2026-12-09 08:40:07', 91.5, 24066, 'SUCCEEDED', 370),
  (8, '2026-12-10 08:40:05', 93.4, 24816, 'SUCCEEDED', NULL);

CREATE TABLE rejected_reservations (
  id INTEGER PRIMARY KEY,
  order_ref VARCHAR(16) NOT NULL,
  sku VARCHAR(16) NOT NULL,
  requested_qty INTEGER NOT NULL,
  available_qty INTEGER NOT NULL,
  listed_stock INTEGER NOT NULL,
  outcome VARCHAR(32) NOT NULL,
  created_at DATETIME NOT NULL
);

INSERT INTO rejected_reservations (id, order_ref, sku, requested_qty, available_qty, listed_stock, outcome, created_at) VALUES
  (1, 'O-5518309', 'SKU-16353', 1, 0, 12, 'REJECTED_OUT_OF_STOCK', '2026-12-10 08:05:09'),
  (2, 'O-5518688', 'SKU-24764', 1, 0, 2, 'REJECTED_OUT_OF_STOCK', '2026-12-10 08:32:48'),
  (3, 'O-5518869', 'SKU-11551', 1, 0, 17, 'REJECTED_OUT_OF_STOCK', '2026-12-10 08:45:06'),
  (4, 'O-5518956', 'SKU-29635', 1, 0, 2, 'REJECTED_OUT_OF_STOCK', '2026-12-10 08:50:39'),
  (5, 'O-5519057', 'SKU-37904', 1, 0, 17, 'REJECTED_OUT_OF_STOCK', '2026-12-10 08:55:33'),
  (6, 'O-5519123', 'SKU-10537', 1, 0, 2, 'REJECTED_OUT_OF_STOCK', '2026-12-10 08:59:24'),
  (7, 'O-5519196', 'SKU-30685', 1, 0, 17, 'REJECTED_OUT_OF_STOCK', '2026-12-10 09:05:44'),
  (8, 'O-5519288', 'SKU-25552', 1, 0, 17, 'REJECTED_OUT_OF_STOCK', '2026-12-10 09:12:49'),
  (9, 'O-5519368', 'SKU-25105', 1, 0, 17, 'REJECTED_OUT_OF_STOCK', '2026-12-10 09:21:20'),
  (10, 'O-5519405', 'SKU-14579', 1, 0, 3, 'REJECTED_OUT_OF_STOCK', '2026-12-10 09:23:05'),
  (11, 'O-5519458', 'SKU-39376', 1, 0, 3, 'REJECTED_OUT_OF_STOCK', '2026-12-10 09:27:27');
