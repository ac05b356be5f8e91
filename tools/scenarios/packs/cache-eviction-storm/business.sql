-- cache-eviction-storm business data: products, cache configuration changes, importer jobs and
-- redis-catalog keyspace snapshots of 2026-10-21. Times are UTC. SQLite- and MariaDB-compatible.

CREATE TABLE products (
  id INTEGER PRIMARY KEY,
  sku VARCHAR(32) NOT NULL,
  name VARCHAR(128) NOT NULL,
  category VARCHAR(64) NOT NULL,
  price DECIMAL(10,2) NOT NULL,
  stock INTEGER NOT NULL,
  updated_at DATETIME NOT NULL
);

INSERT INTO products (id, sku, name, category, price, stock, updated_at) VALUES
  (48213, 'SKU-BOO-1000', 'Trail Boot Classic', 'boots', 124.03, 147, '2026-10-21 06:22:03'),
  (48250, 'SKU-JAC-1001', 'Rain Jacket Classic', 'jackets', 393.11, 46, '2026-10-21 06:13:04'),
  (48287, 'SKU-BAG-1002', 'Daypack 20L Classic', 'bags', 83.11, 108, '2026-10-21 06:15:33'),
  (48324, 'SKU-TEN-1003', 'Tent 2P Classic', 'tents', 46.58, 420, '2026-10-21 06:07:45'),
  (48361, 'SKU-LAM-1004', 'Headlamp 400 Classic', 'lamps', 174.57, 140, '2026-10-21 06:05:40'),
  (48398, 'SKU-BOO-1005', 'Chelsea Boot Pro', 'boots', 176.36, 134, '2026-10-21 06:02:10'),
  (48435, 'SKU-JAC-1006', 'Down Jacket Pro', 'jackets', 66.66, 201, '2026-10-21 06:22:28'),
  (48472, 'SKU-BAG-1007', 'Duffel 40L Pro', 'bags', 356.11, 370, '2026-10-21 06:12:49'),
  (48509, 'SKU-TEN-1008', 'Tent 3P Pro', 'tents', 375.15, 160, '2026-10-21 06:27:23'),
  (48546, 'SKU-LAM-1009', 'Lantern Pro', 'lamps', 234.88, 95, '2026-10-21 06:21:57'),
  (48583, 'SKU-BOO-1010', 'Hiking Boot Lite', 'boots', 372.55, 67, '2026-10-21 06:21:46'),
  (48620, 'SKU-JAC-1011', 'Softshell Lite', 'jackets', 106.45, 377, '2026-10-21 06:06:09'),
  (48657, 'SKU-BAG-1012', 'Sling Bag Lite', 'bags', 286.16, 197, '2026-10-21 06:17:46'),
  (48694, 'SKU-TEN-1013', 'Bivy Lite', 'tents', 264.01, 203, '2026-10-21 06:07:56'),
  (48731, 'SKU-LAM-1014', 'Headlamp 900 Lite', 'lamps', 373.83, 380, '2026-10-21 06:25:09'),
  (48768, 'SKU-BOO-1015', 'Winter Boot Max', 'boots', 263.05, 266, '2026-10-21 06:08:29'),
  (48805, 'SKU-JAC-1016', 'Fleece Max', 'jackets', 205.54, 316, '2026-10-21 06:08:42'),
  (48842, 'SKU-BAG-1017', 'Laptop Backpack Max', 'bags', 364.42, 277, '2026-10-21 06:19:22'),
  (48879, 'SKU-TEN-1018', 'Tarp Max', 'tents', 371.31, 385, '2026-10-21 06:13:39'),
  (48916, 'SKU-LAM-1019', 'Bike Light Max', 'lamps', 117.65, 179, '2026-10-21 06:28:03'),
  (48953, 'SKU-BOO-1020', 'Trail Boot Eco', 'boots', 271.50, 400, '2026-10-21 06:25:44'),
  (48990, 'SKU-JAC-1021', 'Rain Jacket Eco', 'jackets', 228.27, 119, '2026-10-21 06:06:10'),
  (49027, 'SKU-BAG-1022', 'Daypack 20L Eco', 'bags', 104.17, 163, '2026-10-21 06:26:15'),
  (49064, 'SKU-TEN-1023', 'Tent 2P Eco', 'tents', 280.18, 297, '2026-10-21 06:12:27'),
  (49101, 'SKU-LAM-1024', 'Headlamp 400 Eco', 'lamps', 198.48, 205, '2026-10-21 06:15:31');

INSERT INTO products (id, sku, name, category, price, stock, updated_at) VALUES
  (49138, 'SKU-BOO-1025', 'Chelsea Boot Kids', 'boots', 107.59, 141, '2026-10-21 06:14:49'),
  (49175, 'SKU-JAC-1026', 'Down Jacket Kids', 'jackets', 33.34, 74, '2026-10-21 06:04:17'),
  (49212, 'SKU-BAG-1027', 'Duffel 40L Kids', 'bags', 165.79, 309, '2026-10-21 06:03:39'),
  (49249, 'SKU-TEN-1028', 'Tent 3P Kids', 'tents', 319.51, 283, '2026-10-21 06:05:07'),
  (49286, 'SKU-LAM-1029', 'Lantern Kids', 'lamps', 375.43, 131, '2026-10-21 06:16:35'),
  (49323, 'SKU-BOO-1030', 'Hiking Boot Plus', 'boots', 311.28, 270, '2026-10-21 06:14:40'),
  (49360, 'SKU-JAC-1031', 'Softshell Plus', 'jackets', 45.44, 311, '2026-10-21 06:20:47'),
  (49397, 'SKU-BAG-1032', 'Sling Bag Plus', 'bags', 295.29, 146, '2026-10-21 06:14:43'),
  (49434, 'SKU-TEN-1033', 'Bivy Plus', 'tents', 317.87, 413, '2026-10-21 06:14:42'),
  (49471, 'SKU-LAM-1034', 'Headlamp 900 Plus', 'lamps', 243.06, 2, '2026-10-21 06:24:09'),
  (49508, 'SKU-BOO-1035', 'Winter Boot Ultra', 'boots', 165.08, 319, '2026-10-21 06:24:15'),
  (49545, 'SKU-JAC-1036', 'Fleece Ultra', 'jackets', 238.32, 137, '2026-10-21 06:26:21'),
  (49582, 'SKU-BAG-1037', 'Laptop Backpack Ultra', 'bags', 137.05, 80, '2026-10-21 06:03:25'),
  (49619, 'SKU-TEN-1038', 'Tarp Ultra', 'tents', 287.90, 182, '2026-10-21 06:20:37'),
  (49656, 'SKU-LAM-1039', 'Bike Light Ultra', 'lamps', 227.17, 334, '2026-10-21 06:29:00');

CREATE TABLE cache_config (
  id INTEGER PRIMARY KEY,
  cache_name VARCHAR(64) NOT NULL,
  param VARCHAR(64) NOT NULL,
  old_value VARCHAR(64),
  new_value VARCHAR(64) NOT NULL,
  changed_at DATETIME NOT NULL,
  changed_by VARCHAR(64) NOT NULL,
  change_id VARCHAR(16) NOT NULL
);

INSERT INTO cache_config (id, cache_name, param, old_value, new_value, changed_at, changed_by, change_id) VALUES
  (1, 'redis-catalog', 'maxmemory', '2gb', '4gb', '2026-06-20 09:10:00', 'mkovacs', 'CHG-6120'),
  (2, 'redis-catalog', 'maxmemory-policy', 'volatile-lru', 'allkeys-lru', '2026-06-20 09:10:00', 'mkovacs', 'CHG-6120'),
  (3, 'redis-catalog', 'save', '900 1', '(disabled on primary)', '2026-06-20 09:10:00', 'mkovacs', 'CHG-6120'),
  (4, 'price-refresh', 'ttl_jitter_percent', '0', '10', '2026-08-12 11:02:00', 'awong', 'CHG-6688'),
  (5, 'catalog-service', 'product_ttl_seconds', '3600', '86400', '2026-09-03 14:40:00', 'awong', 'CHG-6950'),
  (6, 'catalog-service', 'single_flight_loading', 'false', 'true', '2026-09-03 14:40:00', 'awong', 'CHG-6950'),
  (7, 'catalog-importer', 'bundle_ttl_seconds', '3600', '0', '2026-10-21 13:35:02', 'deploy-bot', 'CHG-7781'),
  (8, 'catalog-importer', 'embed_products', 'false', 'true', '2026-10-21 13:35:02', 'deploy-bot', 'CHG-7781');

CREATE TABLE import_jobs (
  id INTEGER PRIMARY KEY,
  job_name VARCHAR(64) NOT NULL,
  started_at DATETIME NOT NULL,
  finished_at DATETIME,
  target VARCHAR(64) NOT NULL,
  key_pattern VARCHAR(64) NOT NULL,
  keys_written INTEGER NOT NULL,
  total_bytes BIGINT NOT NULL,
  avg_value_bytes INTEGER NOT NULL,
  ttl_seconds INTEGER NOT NULL,
  status VARCHAR(16) NOT NULL
);

INSERT INTO import_jobs (id, job_name, started_at, finished_at, target, key_pattern, keys_written, total_bytes, avg_value_bytes, ttl_seconds, status) VALUES
  (1, 'price-refresh-1014', '2026-10-14 06:00:00', '2026-10-14 06:03:36', 'redis-catalog', 'price:*', 412558, 420809160, 1020, 3600, 'COMPLETED'),
  (2, 'promo-bundles-1014', '2026-10-14 13:40:00', '2026-10-14 13:40:52', 'redis-catalog', 'catalog:bundle:*', 1183, 43522570, 36790, 3600, 'COMPLETED'),
  (3, 'price-refresh-1015', '2026-10-15 06:00:00', '2026-10-15 06:03:46', 'redis-catalog', 'price:*', 406320, 414446400, 1020, 3600, 'COMPLETED'),
  (4, 'promo-bundles-1015', '2026-10-15 13:40:00', '2026-10-15 13:41:02', 'redis-catalog', 'catalog:bundle:*', 1176, 45686424, 38849, 3600, 'COMPLETED'),
  (5, 'price-refresh-1016', '2026-10-16 06:00:00', '2026-10-16 06:04:08', 'redis-catalog', 'price:*', 405565, 413676300, 1020, 3600, 'COMPLETED'),
  (6, 'promo-bundles-1016', '2026-10-16 13:40:00', '2026-10-16 13:40:52', 'redis-catalog', 'catalog:bundle:*', 1107, 45044937, 40691, 3600, 'COMPLETED'),
  (7, 'price-refresh-1017', '2026-10-17 06:00:00', '2026-10-17 06:03:32', 'redis-catalog', 'price:*', 405010, 413110200, 1020, 3600, 'COMPLETED'),
  (8, 'promo-bundles-1017', '2026-10-17 13:40:00', '2026-10-17 13:41:07', 'redis-catalog', 'catalog:bundle:*', 1176, 44177616, 37566, 3600, 'COMPLETED'),
  (9, 'price-refresh-1018', '2026-10-18 06:00:00', '2026-10-18 06:03:33', 'redis-catalog', 'price:*', 407735, 415889700, 1020, 3600, 'COMPLETED'),
  (10, 'promo-bundles-1018', '2026-10-18 13:40:00', '2026-10-18 13:41:03', 'redis-catalog', 'catalog:bundle:*', 1135, 44018705, 38783, 3600, 'COMPLETED'),
  (11, 'price-refresh-1019', '2026-10-19 06:00:00', '2026-10-19 06:04:14', 'redis-catalog', 'price:*', 413919, 422197380, 1020, 3600, 'COMPLETED'),
  (12, 'promo-bundles-1019', '2026-10-19 13:40:00', '2026-10-19 13:40:57', 'redis-catalog', 'catalog:bundle:*', 1161, 46657107, 40187, 3600, 'COMPLETED'),
  (13, 'price-refresh-1020', '2026-10-20 06:00:00', '2026-10-20 06:03:40', 'redis-catalog', 'price:*', 412451, 420700020, 1020, 3600, 'COMPLETED'),
  (14, 'promo-bundles-1020', '2026-10-20 13:40:00', '2026-10-20 13:41:01', 'redis-catalog', 'catalog:bundle:*', 1167, 43816182, 37546, 3600, 'COMPLETED'),
  (15, 'price-refresh-1021', '2026-10-21 06:00:00', '2026-10-21 06:03:51', 'redis-catalog', 'price:*', 410233, 418437660, 1020, 3600, 'COMPLETED'),
  (16, 'price-feed-partner-7', '2026-10-21 13:22:00', '2026-10-21 13:22:05', 'catalog-db', 'prices', 0, 0, 0, 0, 'FAILED'),
  (17, 'promo-bundles-1021', '2026-10-21 13:40:00', '2026-10-21 13:52:10', 'redis-catalog', 'catalog:bundle:*', 1240, 3770678800, 3040870, 0, 'COMPLETED');

CREATE TABLE cache_keyspace_snapshots (
  id INTEGER PRIMARY KEY,
  snapshot_at DATETIME NOT NULL,
  cache_name VARCHAR(64) NOT NULL,
  key_prefix VARCHAR(64) NOT NULL,
  key_count INTEGER NOT NULL,
  total_bytes BIGINT NOT NULL
);

INSERT INTO cache_keyspace_snapshots (id, snapshot_at, cache_name, key_prefix, key_count, total_bytes) VALUES
  (1, '2026-10-21 13:15:00', 'redis-catalog', 'product:', 209700, 1717986918),
  (2, '2026-10-21 13:15:00', 'redis-catalog', 'price:', 410233, 429496729),
  (3, '2026-10-21 13:15:00', 'redis-catalog', 'category:', 1840, 161061273),
  (4, '2026-10-21 13:15:00', 'redis-catalog', 'session:', 96100, 483183820),
  (5, '2026-10-21 13:15:00', 'redis-catalog', 'catalog:bundle:', 0, 0),
  (6, '2026-10-21 13:30:00', 'redis-catalog', 'product:', 209650, 1717986918),
  (7, '2026-10-21 13:30:00', 'redis-catalog', 'price:', 410233, 429496729),
  (8, '2026-10-21 13:30:00', 'redis-catalog', 'category:', 1840, 161061273),
  (9, '2026-10-21 13:30:00', 'redis-catalog', 'session:', 97400, 483183820),
  (10, '2026-10-21 13:30:00', 'redis-catalog', 'catalog:bundle:', 0, 0),
  (11, '2026-10-21 13:45:00', 'redis-catalog', 'product:', 197900, 1621350154),
  (12, '2026-10-21 13:45:00', 'redis-catalog', 'price:', 389700, 408021893),
  (13, '2026-10-21 13:45:00', 'redis-catalog', 'category:', 1840, 161061273),
  (14, '2026-10-21 13:45:00', 'redis-catalog', 'session:', 93000, 461708984),
  (15, '2026-10-21 13:45:00', 'redis-catalog', 'catalog:bundle:', 515, 1566048050),
  (16, '2026-10-21 14:00:00', 'redis-catalog', 'product:', 31400, 257698037),
  (17, '2026-10-21 14:00:00', 'redis-catalog', 'price:', 61500, 64424509),
  (18, '2026-10-21 14:00:00', 'redis-catalog', 'category:', 370, 32212254),
  (19, '2026-10-21 14:00:00', 'redis-catalog', 'session:', 23800, 118111600),
  (20, '2026-10-21 14:00:00', 'redis-catalog', 'catalog:bundle:', 1240, 3770678800),
  (21, '2026-10-21 14:15:00', 'redis-catalog', 'product:', 32700, 268435456),
  (22, '2026-10-21 14:15:00', 'redis-catalog', 'price:', 51900, 53687091),
  (23, '2026-10-21 14:15:00', 'redis-catalog', 'category:', 390, 32212254),
  (24, '2026-10-21 14:15:00', 'redis-catalog', 'session:', 24100, 118111600),
  (25, '2026-10-21 14:15:00', 'redis-catalog', 'catalog:bundle:', 1240, 3770678800);
