-- feature-flag business data: feature flags and their change history, deploy history and a sample of
-- search requests of 2026-12-02 10:00-11:30 UTC. Times are UTC. SQLite- and MariaDB-compatible.

CREATE TABLE feature_flags (
  id INTEGER PRIMARY KEY,
  flag_key VARCHAR(64) NOT NULL,
  service VARCHAR(64) NOT NULL,
  description VARCHAR(255),
  state VARCHAR(8) NOT NULL,
  rollout_percent INTEGER NOT NULL,
  owner_team VARCHAR(32) NOT NULL,
  updated_at DATETIME NOT NULL
);

INSERT INTO feature_flags (id, flag_key, service, description, state, rollout_percent, owner_team, updated_at) VALUES
  (1, 'search.rerank-v2', 'search-service', 'Re-rank the top 200 candidates with embedding similarity (embedding-service)', 'on', 100, 'search-relevance', '2026-12-02 10:36:48'),
  (2, 'search.spellcheck-v3', 'search-service', 'New spelling correction dictionary', 'on', 50, 'search-relevance', '2026-12-02 10:11:05'),
  (3, 'checkout.apple-pay-button', 'checkout-service', 'Show Apple Pay on the cart page', 'on', 100, 'checkout', '2026-12-02 09:52:17'),
  (4, 'catalog.facet-counts-v2', 'catalog-service', 'Exact facet counts', 'off', 0, 'catalog', '2026-11-20 15:31:02'),
  (5, 'search.autocomplete-personalised', 'search-service', 'Personalised autocomplete', 'on', 100, 'search-relevance', '2026-11-12 11:05:44');


CREATE TABLE flag_changes (
  id INTEGER PRIMARY KEY,
  change_id VARCHAR(16) NOT NULL,
  flag_key VARCHAR(64) NOT NULL,
  environment VARCHAR(16) NOT NULL,
  old_state VARCHAR(16) NOT NULL,
  new_state VARCHAR(16) NOT NULL,
  changed_by VARCHAR(32) NOT NULL,
  changed_at DATETIME NOT NULL,
  reason VARCHAR(255)
);

INSERT INTO flag_changes (id, change_id, flag_key, environment, old_state, new_state, changed_by, changed_at, reason) VALUES
  (1, 'FLG-3290', 'search.autocomplete-personalised', 'production', 'on 50%', 'on 100%', 'a.nowak', '2026-11-12 11:05:44', 'ramp complete'),
  (2, 'FLG-3301', 'catalog.facet-counts-v2', 'production', 'on 100%', 'off', 'r.lindqvist', '2026-11-20 15:31:02', 'rollback: facet counts slow on large categories'),
  (3, 'FLG-3309', 'search.rerank-v2', 'production', 'off', 'on 5%', 'm.okafor', '2026-11-30 14:02:10', 'start CTR experiment'),
  (4, 'FLG-3312', 'search.rerank-v2', 'production', 'on 5%', 'on 10%', 'm.okafor', '2026-12-01 09:15:39', 'experiment arm B to 10%'),
  (5, 'FLG-3314', 'search.spellcheck-v3', 'production', 'off', 'on 25%', 'a.nowak', '2026-12-01 13:40:02', 'start rollout'),
  (6, 'FLG-3316', 'checkout.apple-pay-button', 'production', 'off', 'on 100%', 'j.santos', '2026-12-02 09:52:17', 'launch'),
  (7, 'FLG-3317', 'search.spellcheck-v3', 'production', 'on 25%', 'on 50%', 'a.nowak', '2026-12-02 10:11:05', 'rollout step 2'),
  (8, 'FLG-3318', 'search.rerank-v2', 'production', 'on 10%', 'on 100%', 'm.okafor', '2026-12-02 10:36:48', 'ramp after positive CTR experiment');


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
  (1, 'embedding-service', '1.8.2', '1.8.1', '2026-11-26 10:20:05', 'deploy-bot', 'CHG-61802', 'ONNX runtime 1.19', 'SUCCEEDED'),
  (2, 'search-service', '5.6.0', '5.5.2', '2026-12-01 16:10:48', 'deploy-bot', 'CHG-61877', 'rerank-v2 batching (4 x 50 candidates), behind flag search.rerank-v2', 'SUCCEEDED'),
  (3, 'checkout-service', '12.4.0', '12.3.1', '2026-12-02 09:48:12', 'deploy-bot', 'CHG-61890', 'Apple Pay button', 'SUCCEEDED'),
  (4, 'catalog-service', '2.19.0', '2.18.4', '2026-12-02 10:04:31', 'deploy-bot', 'CHG-61893', 'Bulk price import endpoint', 'SUCCEEDED');


CREATE TABLE search_requests (
  id INTEGER PRIMARY KEY,
  requested_at DATETIME NOT NULL,
  query_text VARCHAR(128) NOT NULL,
  hits INTEGER NOT NULL,
  rerank_variant VARCHAR(8) NOT NULL,
  latency_ms INTEGER NOT NULL,
  status VARCHAR(16) NOT NULL
);

INSERT INTO search_requests (id, requested_at, query_text, hits, rerank_variant, latency_ms, status) VALUES
  (1, '2026-12-02 10:00:52', 'rain jacket', 1816, 'v2', 478, 'OK'),
  (2, '2026-12-02 10:01:31', 'scarf', 596, 'v2', 390, 'OK'),
  (3, '2026-12-02 10:03:29', 'down vest', 2086, 'v1', 251, 'OK'),
  (4, '2026-12-02 10:04:31', 'wool socks', 1657, 'v1', 157, 'OK'),
  (5, '2026-12-02 10:05:00', 'fleece jacket', 1890, 'v1', 188, 'OK'),
  (6, '2026-12-02 10:05:59', 'down vest', 1586, 'v1', 162, 'OK'),
  (7, '2026-12-02 10:07:21', 'ski goggles', 1788, 'v2', 585, 'OK'),
  (8, '2026-12-02 10:07:41', 'fleece jacket', 1929, 'v1', 198, 'OK'),
  (9, '2026-12-02 10:08:14', 'waterproof backpack', 201, 'v1', 260, 'OK'),
  (10, '2026-12-02 10:10:15', 'waterproof backpack', 978, 'v1', 203, 'OK'),
  (11, '2026-12-02 10:11:42', 'winter boots', 1679, 'v1', 134, 'OK'),
  (12, '2026-12-02 10:12:39', 'rain jacket', 1162, 'v1', 218, 'OK'),
  (13, '2026-12-02 10:13:12', 'fleece jacket', 1598, 'v1', 115, 'OK'),
  (14, '2026-12-02 10:13:42', 'boot dryer', 1750, 'v1', 224, 'OK'),
  (15, '2026-12-02 10:14:20', 'rain jacket', 1810, 'v1', 152, 'OK'),
  (16, '2026-12-02 10:14:24', 'heated blanket', 2198, 'v1', 158, 'OK'),
  (17, '2026-12-02 10:14:57', 'hiking boots women', 284, 'v1', 186, 'OK'),
  (18, '2026-12-02 10:15:41', 'led headlamp', 2346, 'v1', 181, 'OK'),
  (19, '2026-12-02 10:16:43', 'heated blanket', 2231, 'v1', 255, 'OK'),
  (20, '2026-12-02 10:18:36', 'kids snowsuit', 887, 'v1', 131, 'OK'),
  (21, '2026-12-02 10:19:11', 'fleece jacket', 2024, 'v1', 213, 'OK'),
  (22, '2026-12-02 10:21:20', 'merino base layer', 207, 'v1', 224, 'OK'),
  (23, '2026-12-02 10:22:02', 'insulated bottle', 2328, 'v1', 160, 'OK'),
  (24, '2026-12-02 10:23:17', 'winter boots', 2025, 'v1', 203, 'OK'),
  (25, '2026-12-02 10:24:40', 'thermal gloves', 892, 'v1', 169, 'OK');

INSERT INTO search_requests (id, requested_at, query_text, hits, rerank_variant, latency_ms, status) VALUES
  (26, '2026-12-02 10:25:41', 'rain jacket', 1400, 'v1', 129, 'OK'),
  (27, '2026-12-02 10:27:32', 'boot dryer', 1849, 'v1', 231, 'OK'),
  (28, '2026-12-02 10:28:36', 'beanie', 2301, 'v2', 509, 'OK'),
  (29, '2026-12-02 10:29:18', 'hiking boots women', 867, 'v1', 182, 'OK'),
  (30, '2026-12-02 10:30:25', 'hiking boots women', 948, 'v1', 205, 'OK'),
  (31, '2026-12-02 10:32:06', 'ski goggles', 2001, 'v1', 207, 'OK'),
  (32, '2026-12-02 10:33:53', 'beanie', 380, 'v1', 99, 'OK'),
  (33, '2026-12-02 10:35:09', 'boot dryer', 376, 'v1', 214, 'OK'),
  (34, '2026-12-02 10:35:47', 'fleece jacket', 1678, 'v1', 141, 'OK'),
  (35, '2026-12-02 10:36:31', 'snow shovel', 1842, 'v1', 125, 'OK'),
  (36, '2026-12-02 10:37:50', 'boot dryer', 288, 'v2', 1807, 'OK'),
  (37, '2026-12-02 10:39:53', 'hiking boots women', 1318, 'v2', 3016, 'ERROR_504'),
  (38, '2026-12-02 10:41:15', 'snow shovel', 1974, 'v2', 645, 'ERROR_503'),
  (39, '2026-12-02 10:41:41', 'winter boots', 1906, 'v2', 2649, 'OK'),
  (40, '2026-12-02 10:42:15', 'fleece jacket', 2394, 'v2', 3024, 'ERROR_504'),
  (41, '2026-12-02 10:42:29', 'boot dryer', 2114, 'v2', 643, 'ERROR_503'),
  (42, '2026-12-02 10:43:05', 'down vest', 1043, 'v2', 916, 'ERROR_503'),
  (43, '2026-12-02 10:43:25', 'boot dryer', 1833, 'v2', 3012, 'ERROR_504'),
  (44, '2026-12-02 10:44:18', 'heated blanket', 1750, 'v2', 2471, 'OK'),
  (45, '2026-12-02 10:45:13', 'kids snowsuit', 1885, 'v2', 3024, 'ERROR_504'),
  (46, '2026-12-02 10:46:10', 'scarf', 1746, 'v2', 3013, 'ERROR_504'),
  (47, '2026-12-02 10:47:03', 'snow shovel', 786, 'v2', 996, 'ERROR_503'),
  (48, '2026-12-02 10:47:40', 'heated blanket', 1292, 'v2', 2599, 'OK'),
  (49, '2026-12-02 10:47:57', 'insulated bottle', 183, 'v2', 2817, 'OK'),
  (50, '2026-12-02 10:49:01', 'merino base layer', 969, 'v2', 448, 'ERROR_503');

INSERT INTO search_requests (id, requested_at, query_text, hits, rerank_variant, latency_ms, status) VALUES
  (51, '2026-12-02 10:52:05', 'merino base layer', 72, 'v2', 3022, 'ERROR_504'),
  (52, '2026-12-02 10:53:50', 'led headlamp', 196, 'v2', 3016, 'ERROR_504'),
  (53, '2026-12-02 10:54:52', 'kids snowsuit', 2216, 'v2', 3010, 'ERROR_504'),
  (54, '2026-12-02 10:55:48', 'wool socks', 810, 'v2', 1400, 'ERROR_503'),
  (55, '2026-12-02 10:57:24', 'heated blanket', 2393, 'v2', 938, 'ERROR_503'),
  (56, '2026-12-02 10:58:46', 'wool socks', 2005, 'v2', 2640, 'OK'),
  (57, '2026-12-02 10:59:45', 'fleece jacket', 1998, 'v2', 3014, 'ERROR_504'),
  (58, '2026-12-02 11:00:15', 'scarf', 1621, 'v2', 566, 'ERROR_503'),
  (59, '2026-12-02 11:01:04', 'snow shovel', 1859, 'v2', 2612, 'OK'),
  (60, '2026-12-02 11:02:35', 'beanie', 1330, 'v2', 2539, 'OK'),
  (61, '2026-12-02 11:04:01', 'snow shovel', 578, 'v2', 1359, 'ERROR_503'),
  (62, '2026-12-02 11:05:50', 'fleece jacket', 1629, 'v2', 504, 'ERROR_503'),
  (63, '2026-12-02 11:05:54', 'kids snowsuit', 1871, 'v2', 2619, 'OK'),
  (64, '2026-12-02 11:07:14', 'led headlamp', 1175, 'v2', 1104, 'ERROR_503'),
  (65, '2026-12-02 11:07:28', 'snow shovel', 485, 'v2', 2587, 'OK'),
  (66, '2026-12-02 11:07:46', 'led headlamp', 1884, 'v2', 1548, 'ERROR_503'),
  (67, '2026-12-02 11:09:26', 'heated blanket', 380, 'v2', 3012, 'ERROR_504'),
  (68, '2026-12-02 11:10:21', 'waterproof backpack', 220, 'v2', 570, 'ERROR_503'),
  (69, '2026-12-02 11:10:46', 'waterproof backpack', 589, 'v2', 2455, 'OK'),
  (70, '2026-12-02 11:11:36', 'thermal gloves', 1372, 'v2', 2645, 'OK'),
  (71, '2026-12-02 11:12:37', 'kids snowsuit', 1186, 'v2', 2466, 'OK'),
  (72, '2026-12-02 11:12:56', 'beanie', 829, 'v2', 2581, 'OK'),
  (73, '2026-12-02 11:13:15', 'thermal gloves', 2244, 'v2', 1394, 'ERROR_503'),
  (74, '2026-12-02 11:15:17', 'winter boots', 1493, 'v2', 2664, 'OK'),
  (75, '2026-12-02 11:16:55', 'merino base layer', 2262, 'v2', 1212, 'ERROR_503');

INSERT INTO search_requests (id, requested_at, query_text, hits, rerank_variant, latency_ms, status) VALUES
  (76, '2026-12-02 11:19:13', 'winter boots', 854, 'v2', 2799, 'OK'),
  (77, '2026-12-02 11:20:44', 'down vest', 1556, 'v2', 2549, 'OK'),
  (78, '2026-12-02 11:21:25', 'led headlamp', 2043, 'v2', 2677, 'OK'),
  (79, '2026-12-02 11:21:53', 'down vest', 763, 'v2', 3019, 'ERROR_504'),
  (80, '2026-12-02 11:22:25', 'boot dryer', 2337, 'v2', 2565, 'OK'),
  (81, '2026-12-02 11:25:33', 'scarf', 1543, 'v2', 3022, 'ERROR_504'),
  (82, '2026-12-02 11:27:07', 'rain jacket', 567, 'v2', 1496, 'ERROR_503'),
  (83, '2026-12-02 11:27:23', 'snow shovel', 524, 'v2', 2878, 'OK'),
  (84, '2026-12-02 11:28:04', 'ski goggles', 1532, 'v2', 2789, 'OK');
