-- payout incident business data: configuration changes, deployments and a sample of payouts of
-- 2026-11-24. Times are UTC. SQLite- and MariaDB-compatible.

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
  (1, 'CHG-88102', 'notification-service', 'sms.provider', 'twilio', 'messagebird', 'a.lindqvist', 'cost review Q4', '2026-11-24 09:00:41'),
  (2, 'CHG-88155', 'ledger-service', 'db.pool.max', '40', '50', 'm.ortega', 'month-end headroom', '2026-11-24 11:20:13'),
  (3, 'CHG-88201', 'api-gateway', 'rate_limit.payouts', '200', '250', 's.baptiste', 'merchant growth', '2026-11-24 13:40:02'),
  (4, 'CHG-88213', 'sanctions-screening', 'screening.match_mode', 'exact', 'fuzzy_full', 'j.okafor', 'COMP-771 stricter name matching', '2026-11-24 14:02:11'),
  (5, 'CHG-87990', 'payout-api', 'payout.screening.timeout-ms', '5000', '10000', 'r.haddad', 'screening p99 spikes at month end', '2026-11-18 16:12:55');

CREATE TABLE deployments (
  id INTEGER PRIMARY KEY,
  change_id VARCHAR(16) NOT NULL,
  service VARCHAR(64) NOT NULL,
  version VARCHAR(16) NOT NULL,
  previous_version VARCHAR(16) NOT NULL,
  status VARCHAR(16) NOT NULL,
  deployed_by VARCHAR(32) NOT NULL,
  started_at DATETIME NOT NULL,
  finished_at DATETIME NOT NULL
);

INSERT INTO deployments (id, change_id, service, version, previous_version, status, deployed_by, started_at, finished_at) VALUES
  (1, 'CHG-88011', 'ledger-service', 'v7.2.3', 'v7.2.2', 'succeeded', 'ci-bot', '2026-11-23 15:10:00', '2026-11-23 15:14:22'),
  (2, 'CHG-88190', 'payout-api', 'v2.14.1', 'v2.14.0', 'succeeded', 'ci-bot', '2026-11-24 13:03:40', '2026-11-24 13:05:12'),
  (3, 'CHG-88209', 'notification-service', 'v5.3.0', 'v5.2.9', 'succeeded', 'ci-bot', '2026-11-24 13:58:30', '2026-11-24 14:00:04'),
  (4, 'CHG-87940', 'sanctions-screening', 'v1.9.0', 'v1.8.4', 'succeeded', 'ci-bot', '2026-11-20 10:31:18', '2026-11-20 10:36:40');

CREATE TABLE payouts (
  id INTEGER PRIMARY KEY,
  payout_id VARCHAR(16) NOT NULL,
  merchant_id VARCHAR(16) NOT NULL,
  amount_cents INTEGER NOT NULL,
  currency VARCHAR(3) NOT NULL,
  status VARCHAR(16) NOT NULL,
  screening_ms INTEGER,
  created_at DATETIME NOT NULL
);

INSERT INTO payouts (id, payout_id, merchant_id, amount_cents, currency, status, screening_ms, created_at) VALUES
  (1, 'po_481220', 'm_1021', 125000, 'EUR', 'paid', 96, '2026-11-24 13:41:07'),
  (2, 'po_481291', 'm_2210', 8800, 'EUR', 'paid', 112, '2026-11-24 13:52:33'),
  (3, 'po_481302', 'm_0412', 43050, 'GBP', 'paid', 88, '2026-11-24 13:59:50'),
  (4, 'po_481355', 'm_1021', 99900, 'EUR', 'paid', 8934, '2026-11-24 14:03:02'),
  (5, 'po_481377', 'm_3318', 15000, 'EUR', 'failed', 10000, '2026-11-24 14:05:12'),
  (6, 'po_481390', 'm_2210', 7200, 'EUR', 'rejected', NULL, '2026-11-24 14:07:45'),
  (7, 'po_481401', 'm_0788', 310000, 'USD', 'rejected', NULL, '2026-11-24 14:11:20'),
  (8, 'po_481425', 'm_0412', 22000, 'GBP', 'rejected', NULL, '2026-11-24 14:20:02');
