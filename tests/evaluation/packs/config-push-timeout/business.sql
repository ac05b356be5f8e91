-- ledger transfers of 2026-12-03 01:30-03:00 UTC, config pushes, deploy history. Times are UTC.

CREATE TABLE config_pushes (
  id INTEGER PRIMARY KEY,
  release_id VARCHAR(16) NOT NULL,
  app VARCHAR(64) NOT NULL,
  property_key VARCHAR(128) NOT NULL,
  old_value VARCHAR(64),
  new_value VARCHAR(64) NOT NULL,
  pushed_at DATETIME NOT NULL,
  operator VARCHAR(64) NOT NULL,
  ticket VARCHAR(16) NOT NULL,
  note VARCHAR(255)
);

INSERT INTO config_pushes (id, release_id, app, property_key, old_value, new_value, pushed_at, operator, ticket, note) VALUES
  (1, 'r1271', 'web-portal', 'portal.banner.enabled', 'false', 'true', '2026-11-28 09:12:00', 'liuyang', 'CR-5480', '年终活动横幅'),
  (2, 'r1280', 'settlement-batch', 'settlement.batch.size', '200', '500', '2026-12-01 16:40:11', 'chenjie', 'CR-5512', '提高清算吞吐'),
  (3, 'r1286', 'fx-rates', 'fx.cache.ttl-seconds', '60', '30', '2026-12-02 11:05:42', 'wangfang', 'CR-5524', '缩短缓存'),
  (4, 'r1289', 'ledger-api', 'fx.client.connect-timeout-ms', '2000', '20', '2026-12-03 02:13:38', 'zhangwei', 'CR-5531', '统一超时单位（原意为 20 秒）');

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
  (1, 'ledger-api', 'v8.3.0', 'v8.2.4', '2026-11-30 10:02:10', 'deploy-bot', 'CHG-60112', 'Multi-currency rounding fix', 'SUCCEEDED'),
  (2, 'fx-rates', 'v2.6.1', 'v2.6.0', '2026-12-01 08:30:55', 'deploy-bot', 'CHG-60130', 'ECB feed parser hardening', 'SUCCEEDED'),
  (3, 'web-portal', 'v5.1.0', 'v5.0.7', '2026-12-03 01:58:00', 'deploy-bot', 'CHG-60151', 'New transfer confirmation page', 'SUCCEEDED');

CREATE TABLE transfers (
  id INTEGER PRIMARY KEY,
  transfer_id VARCHAR(16) NOT NULL,
  amount DECIMAL(12,2) NOT NULL,
  currency VARCHAR(3) NOT NULL,
  status VARCHAR(16) NOT NULL,
  created_at DATETIME NOT NULL
);

INSERT INTO transfers (id, transfer_id, amount, currency, status, created_at) VALUES
  (1, 'TX50112233', 120.00, 'EUR', 'POSTED', '2026-12-03 02:05:10'),
  (2, 'TX50112240', 88.50, 'EUR', 'POSTED', '2026-12-03 02:10:44'),
  (3, 'TX50112251', 300.00, 'EUR', 'FAILED', '2026-12-03 02:14:20'),
  (4, 'TX50112262', 45.10, 'EUR', 'FAILED', '2026-12-03 02:16:02');
