-- conntrack-table-full business data: infrastructure change log (nodes, sysctl, kubelet, gateway), deploy
-- history, pod placement snapshot and a sample of checkout orders of 2026-12-15 19:00-20:30 UTC.
-- Times are UTC. SQLite- and MariaDB-compatible.

CREATE TABLE infra_changes (
  id INTEGER PRIMARY KEY,
  change_id VARCHAR(16) NOT NULL,
  change_type VARCHAR(24) NOT NULL,
  target VARCHAR(64) NOT NULL,
  summary VARCHAR(255) NOT NULL,
  param VARCHAR(64),
  old_value VARCHAR(64),
  new_value VARCHAR(64),
  applied_at DATETIME NOT NULL,
  applied_by VARCHAR(32) NOT NULL
);

INSERT INTO infra_changes (id, change_id, change_type, target, summary, param, old_value, new_value, applied_at, applied_by) VALUES
  (1, 'CHG-61140', 'kernel-patch', 'node-pool general', 'monthly kernel patch, rolling reboot of k8s-node-1..8', 'kernel', '6.1.0-27-amd64', '6.1.0-28-amd64', '2026-12-09 02:10:00', 'node-patcher'),
  (2, 'CHG-61172', 'kubelet-config', 'k8s-node-5', 'allow more pods on the larger node', 'maxPods', '110', '120', '2026-12-14 10:42:18', 'm.schneider'),
  (3, 'CHG-61181', 'disk', 'k8s-node-4', 'grow root volume 100 GiB -> 150 GiB', 'root_volume_gib', '100', '150', '2026-12-15 19:23:55', 'm.schneider'),
  (4, 'CHG-61186', 'gateway-config', 'api-gateway', 'raise per-client rate limit for the Christmas campaign', 'rate_limit.per_client_rps', '20', '30', '2026-12-15 19:05:31', 'j.berg'),
  (5, 'CHG-61188', 'sysctl', 'k8s-node-7', 'node-tuning baseline worker-baseline-v7 (canary on k8s-node-7): per-node overrides dropped, kernel defaults apply', 'net.netfilter.nf_conntrack_max', '524288', '131072', '2026-12-15 19:18:40', 'node-tuning-operator'),
  (6, 'CHG-61188', 'sysctl', 'k8s-node-7', 'node-tuning baseline worker-baseline-v7 (canary on k8s-node-7): per-node overrides dropped, kernel defaults apply', 'vm.swappiness', '10', '60', '2026-12-15 19:18:40', 'node-tuning-operator'),
  (7, 'CHG-61188', 'sysctl', 'k8s-node-7', 'node-tuning baseline worker-baseline-v7 (canary on k8s-node-7): per-node overrides dropped, kernel defaults apply', 'net.core.somaxconn', '8192', '4096', '2026-12-15 19:18:40', 'node-tuning-operator'),
  (8, 'CHG-61199', 'sysctl', 'node-pool general', 'node-tuning baseline worker-baseline-v7 to all remaining nodes (scheduled after canary)', NULL, NULL, NULL, '2026-12-17 09:00:00', 'node-tuning-operator');

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
  (1, 'inventory-service', 'v4.0.3', 'v4.0.2', '2026-12-11 14:03:27', 'deploy-bot', 'CHG-61120', 'Warehouse feed retries', 'SUCCEEDED'),
  (2, 'pricing-service', 'v2.4.1', 'v2.4.0', '2026-12-14 11:20:02', 'deploy-bot', 'CHG-61170', 'Christmas price book support', 'SUCCEEDED'),
  (3, 'cart-service', 'v8.1.0', 'v8.0.6', '2026-12-12 09:48:50', 'deploy-bot', 'CHG-61131', 'Saved-for-later list', 'SUCCEEDED'),
  (4, 'checkout-service', 'v5.8.0', 'v5.7.2', '2026-12-15 19:31:12', 'deploy-bot', 'CHG-61190', 'Gift-wrap option at checkout; http.timeout config key renamed to http.request_timeout', 'SUCCEEDED');

CREATE TABLE pod_placements (
  id INTEGER PRIMARY KEY,
  pod VARCHAR(64) NOT NULL,
  service VARCHAR(64) NOT NULL,
  node VARCHAR(32) NOT NULL,
  pod_ip VARCHAR(16) NOT NULL,
  started_at DATETIME NOT NULL
);

INSERT INTO pod_placements (id, pod, service, node, pod_ip, started_at) VALUES
  (1, 'api-gateway-5f6d7c8b9-h2j3k', 'api-gateway', 'k8s-node-1', '10.42.1.12', '2026-12-09 02:31:40'),
  (2, 'api-gateway-5f6d7c8b9-p4q5r', 'api-gateway', 'k8s-node-2', '10.42.2.15', '2026-12-09 02:44:12'),
  (3, 'checkout-service-7e8f9a0b1-g5h6j', 'checkout-service', 'k8s-node-2', '10.42.2.37', '2026-12-15 19:31:32'),
  (4, 'checkout-service-7e8f9a0b1-k7l8m', 'checkout-service', 'k8s-node-4', '10.42.4.29', '2026-12-15 19:32:27'),
  (5, 'cart-service-8a9b0c1d2-n9p0q', 'cart-service', 'k8s-node-3', '10.42.3.51', '2026-12-12 09:48:12'),
  (6, 'cart-service-8a9b0c1d2-r1s2t', 'cart-service', 'k8s-node-5', '10.42.5.18', '2026-12-12 09:49:01'),
  (7, 'inventory-service-59d8c7b6a-x4y5z', 'inventory-service', 'k8s-node-3', '10.42.3.23', '2026-12-11 14:02:55'),
  (8, 'inventory-service-59d8c7b6a-w8v7u', 'inventory-service', 'k8s-node-7', '10.42.7.23', '2026-12-11 14:03:27'),
  (9, 'pricing-service-7b6c5d4e3-m2n3b', 'pricing-service', 'k8s-node-5', '10.42.5.41', '2026-12-14 11:19:30'),
  (10, 'pricing-service-7b6c5d4e3-t6y7u', 'pricing-service', 'k8s-node-7', '10.42.7.41', '2026-12-14 11:20:02');

CREATE TABLE checkout_orders (
  id INTEGER PRIMARY KEY,
  order_id VARCHAR(16) NOT NULL,
  status VARCHAR(16) NOT NULL,
  failure_reason VARCHAR(128),
  total_eur DECIMAL(10, 2) NOT NULL,
  created_at DATETIME NOT NULL
);

INSERT INTO checkout_orders (id, order_id, status, failure_reason, total_eur, created_at) VALUES
  (1, 'O-7734103', 'placed', NULL, 73.05, '2026-12-15 19:00:04'),
  (2, 'O-7734133', 'placed', NULL, 219.25, '2026-12-15 19:06:03'),
  (3, 'O-7734161', 'placed', NULL, 65.41, '2026-12-15 19:12:22'),
  (4, 'O-7734186', 'placed', NULL, 96.55, '2026-12-15 19:18:15'),
  (5, 'O-7734212', 'placed', NULL, 206.81, '2026-12-15 19:24:13'),
  (6, 'O-7734242', 'placed', NULL, 26.16, '2026-12-15 19:29:44'),
  (7, 'O-7734275', 'placed', NULL, 235.87, '2026-12-15 19:35:26'),
  (8, 'O-7734300', 'placed', NULL, 165.85, '2026-12-15 19:41:24'),
  (9, 'O-7734327', 'failed', 'inventory reserve: connect timeout', 28.52, '2026-12-15 19:47:25'),
  (10, 'O-7734348', 'placed', NULL, 197.46, '2026-12-15 19:53:14'),
  (11, 'O-7734376', 'placed', NULL, 108.71, '2026-12-15 19:59:03'),
  (12, 'O-7734398', 'placed', NULL, 107.92, '2026-12-15 20:04:45'),
  (13, 'O-7734424', 'failed', 'inventory reserve: connect timeout', 144.60, '2026-12-15 20:10:45'),
  (14, 'O-7734443', 'placed', NULL, 140.8, '2026-12-15 20:16:39'),
  (15, 'O-7734465', 'placed', NULL, 237.35, '2026-12-15 20:22:04'),
  (16, 'O-7734481', 'failed', 'price quote: connect timeout', 131.74, '2026-12-15 20:28:11');
