-- cert-expiry business data: internal TLS certificate inventory, renewal job history, deploy history
-- and invoices of 2026-11-18 07:20-08:50 UTC. Times are UTC. SQLite- and MariaDB-compatible.

CREATE TABLE certificates (
  id INTEGER PRIMARY KEY,
  common_name VARCHAR(128) NOT NULL,
  service VARCHAR(64) NOT NULL,
  issuer VARCHAR(64) NOT NULL,
  serial VARCHAR(32) NOT NULL,
  not_before DATETIME NOT NULL,
  not_after DATETIME NOT NULL,
  auto_renew INTEGER NOT NULL,
  last_renewed_at DATETIME,
  owner_team VARCHAR(32) NOT NULL
);

INSERT INTO certificates (id, common_name, service, issuer, serial, not_before, not_after, auto_renew, last_renewed_at, owner_team) VALUES
  (1, 'api.shop.example.com', 'api-gateway', 'GlobalSign RSA OV SSL CA 2018', '0a:55:3e:19:c4:02', '2026-11-10 09:14:00', '2027-12-12 09:13:59', 1, '2026-11-10 09:14:00', 'edge'),
  (2, 'account-service.internal', 'account-service', 'corp-internal-ca', '4f:2a:91:c3:0e:77', '2026-08-20 08:00:00', '2026-11-18 08:00:00', 1, '2026-08-20 08:00:00', 'identity'),
  (3, 'billing-service.internal', 'billing-service', 'corp-internal-ca', '61:b0:7d:22:a9:14', '2026-11-12 06:00:41', '2027-02-10 06:00:41', 1, '2026-11-12 06:00:41', 'billing'),
  (4, 'notification-service.internal', 'notification-service', 'corp-internal-ca', '19:e4:05:6b:d3:80', '2026-10-30 12:00:37', '2027-01-28 12:00:37', 1, '2026-10-30 12:00:37', 'messaging'),
  (5, 'catalog-service.internal', 'catalog-service', 'corp-internal-ca', '2c:71:f8:90:3a:5d', '2026-10-02 18:00:22', '2026-12-31 18:00:22', 1, '2026-10-02 18:00:22', 'catalog'),
  (6, 'cart-service.internal', 'cart-service', 'corp-internal-ca', '77:0d:c2:4e:19:b6', '2026-09-25 00:00:51', '2026-12-24 00:00:51', 1, '2026-09-25 00:00:51', 'checkout'),
  (7, 'vault.internal', 'vault', 'corp-root-ca', '03:9f:aa:61:72:e8', '2026-01-15 10:00:00', '2027-01-15 10:00:00', 0, NULL, 'platform');

CREATE TABLE renewal_jobs (
  id INTEGER PRIMARY KEY,
  job_id VARCHAR(24) NOT NULL,
  certificate_id INTEGER NOT NULL,
  common_name VARCHAR(128) NOT NULL,
  started_at DATETIME NOT NULL,
  finished_at DATETIME NOT NULL,
  status VARCHAR(16) NOT NULL,
  error_message VARCHAR(255)
);

INSERT INTO renewal_jobs (id, job_id, certificate_id, common_name, started_at, finished_at, status, error_message) VALUES
  (1, 'RJ-103012-001', 4, 'notification-service.internal', '2026-10-30 12:00:05', '2026-10-30 12:00:08', 'SUCCEEDED', NULL),
  (2, 'RJ-111206-002', 3, 'billing-service.internal', '2026-11-12 06:00:09', '2026-11-12 06:00:26', 'SUCCEEDED', NULL),
  (3, 'RJ-111412-003', 2, 'account-service.internal', '2026-11-14 12:00:04', '2026-11-14 12:00:09', 'FAILED', 'vault: PUT https://vault.internal:8200/v1/pki_int/issue/internal-services: Code 403 permission denied (token of cert-renewer expired, policy pki-issue-internal)'),
  (4, 'RJ-111418-004', 2, 'account-service.internal', '2026-11-14 18:00:04', '2026-11-14 18:00:11', 'FAILED', 'vault: PUT https://vault.internal:8200/v1/pki_int/issue/internal-services: Code 403 permission denied (token of cert-renewer expired, policy pki-issue-internal)'),
  (5, 'RJ-111500-005', 2, 'account-service.internal', '2026-11-15 00:00:04', '2026-11-15 00:00:17', 'FAILED', 'vault: PUT https://vault.internal:8200/v1/pki_int/issue/internal-services: Code 403 permission denied (token of cert-renewer expired, policy pki-issue-internal)'),
  (6, 'RJ-111506-006', 2, 'account-service.internal', '2026-11-15 06:00:04', '2026-11-15 06:00:38', 'FAILED', 'vault: PUT https://vault.internal:8200/v1/pki_int/issue/internal-services: Code 403 permission denied (token of cert-renewer expired, policy pki-issue-internal)'),
  (7, 'RJ-111512-007', 2, 'account-service.internal', '2026-11-15 12:00:04', '2026-11-15 12:00:10', 'FAILED', 'vault: PUT https://vault.internal:8200/v1/pki_int/issue/internal-services: Code 403 permission denied (token of cert-renewer expired, policy pki-issue-internal)'),
  (8, 'RJ-111518-008', 2, 'account-service.internal', '2026-11-15 18:00:04', '2026-11-15 18:00:19', 'FAILED', 'vault: PUT https://vault.internal:8200/v1/pki_int/issue/internal-services: Code 403 permission denied (token of cert-renewer expired, policy pki-issue-internal)'),
  (9, 'RJ-111600-009', 2, 'account-service.internal', '2026-11-16 00:00:04', '2026-11-16 00:00:24', 'FAILED', 'vault: PUT https://vault.internal:8200/v1/pki_int/issue/internal-services: Code 403 permission denied (token of cert-renewer expired, policy pki-issue-internal)'),
  (10, 'RJ-111606-010', 2, 'account-service.internal', '2026-11-16 06:00:04', '2026-11-16 06:00:10', 'FAILED', 'vault: PUT https://vault.internal:8200/v1/pki_int/issue/internal-services: Code 403 permission denied (token of cert-renewer expired, policy pki-issue-internal)'),
  (11, 'RJ-111612-011', 2, 'account-service.internal', '2026-11-16 12:00:04', '2026-11-16 12:00:38', 'FAILED', 'vault: PUT https://vault.internal:8200/v1/pki_int/issue/internal-services: Code 403 permission denied (token of cert-renewer expired, policy pki-issue-internal)'),
  (12, 'RJ-111618-012', 2, 'account-service.internal', '2026-11-16 18:00:04', '2026-11-16 18:00:25', 'FAILED', 'vault: PUT https://vault.internal:8200/v1/pki_int/issue/internal-services: Code 403 permission denied (token of cert-renewer expired, policy pki-issue-internal)'),
  (13, 'RJ-111700-013', 2, 'account-service.internal', '2026-11-17 00:00:04', '2026-11-17 00:00:13', 'FAILED', 'vault: PUT https://vault.internal:8200/v1/pki_int/issue/internal-services: Code 403 permission denied (token of cert-renewer expired, policy pki-issue-internal)'),
  (14, 'RJ-111706-014', 2, 'account-service.internal', '2026-11-17 06:00:04', '2026-11-17 06:00:44', 'FAILED', 'vault: PUT https://vault.internal:8200/v1/pki_int/issue/internal-services: Code 403 permission denied (token of cert-renewer expired, policy pki-issue-internal)'),
  (15, 'RJ-111712-015', 2, 'account-service.internal', '2026-11-17 12:00:04', '2026-11-17 12:00:41', 'FAILED', 'vault: PUT https://vault.internal:8200/v1/pki_int/issue/internal-services: Code 403 permission denied (token of cert-renewer expired, policy pki-issue-internal)'),
  (16, 'RJ-111718-016', 2, 'account-service.internal', '2026-11-17 18:00:04', '2026-11-17 18:00:41', 'FAILED', 'vault: PUT https://vault.internal:8200/v1/pki_int/issue/internal-services: Code 403 permission denied (token of cert-renewer expired, policy pki-issue-internal)'),
  (17, 'RJ-111800-017', 2, 'account-service.internal', '2026-11-18 00:00:04', '2026-11-18 00:00:13', 'FAILED', 'vault: PUT https://vault.internal:8200/v1/pki_int/issue/internal-services: Code 403 permission denied (token of cert-renewer expired, policy pki-issue-internal)'),
  (18, 'RJ-111806-018', 2, 'account-service.internal', '2026-11-18 06:00:04', '2026-11-18 06:00:38', 'FAILED', 'vault: PUT https://vault.internal:8200/v1/pki_int/issue/internal-services: Code 403 permission denied (token of cert-renewer expired, policy pki-issue-internal)');

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
  (1, 'account-service', 'v5.7.2', 'v5.7.1', '2026-11-12 10:31:44', 'deploy-bot', 'CHG-31877', 'Address validation for IE postcodes', 'SUCCEEDED'),
  (2, 'notification-service', 'v2.19.0', 'v2.18.3', '2026-11-16 14:05:12', 'deploy-bot', 'CHG-31902', 'Push channel retries', 'SUCCEEDED'),
  (3, 'api-gateway', '1.44.0', '1.43.2', '2026-11-17 09:48:30', 'deploy-bot', 'CHG-31915', 'Partner feed rate limit 200/s', 'SUCCEEDED'),
  (4, 'billing-service', 'v3.4.1', 'v3.4.0', '2026-11-18 07:25:10', 'deploy-bot', 'CHG-31931', 'Tax engine switch, deprecate billing.tax.legacy_mode', 'SUCCEEDED');

CREATE TABLE invoices (
  id INTEGER PRIMARY KEY,
  invoice_no VARCHAR(20) NOT NULL,
  account_id VARCHAR(16) NOT NULL,
  amount DECIMAL(10,2) NOT NULL,
  currency VARCHAR(3) NOT NULL,
  status VARCHAR(16) NOT NULL,
  error_code VARCHAR(32),
  created_at DATETIME NOT NULL
);

INSERT INTO invoices (id, invoice_no, account_id, amount, currency, status, error_code, created_at) VALUES
  (1, 'INV-8841001', 'A1957140', 316.68, 'EUR', 'ISSUED', NULL, '2026-11-18 07:20:40'),
  (2, 'INV-8841002', 'A1790456', 47.50, 'EUR', 'ISSUED', NULL, '2026-11-18 07:21:49'),
  (3, 'INV-8841003', 'A1636665', 90.79, 'EUR', 'ISSUED', NULL, '2026-11-18 07:23:23'),
  (4, 'INV-8841004', 'A1201571', 57.52, 'EUR', 'ISSUED', NULL, '2026-11-18 07:24:28'),
  (5, 'INV-8841005', 'A1233190', 303.12, 'EUR', 'ISSUED', NULL, '2026-11-18 07:25:24'),
  (6, 'INV-8841006', 'A1462370', 118.43, 'EUR', 'ISSUED', NULL, '2026-11-18 07:26:34'),
  (7, 'INV-8841007', 'A1531260', 135.43, 'EUR', 'ISSUED', NULL, '2026-11-18 07:27:30'),
  (8, 'INV-8841008', 'A1307360', 218.16, 'EUR', 'ISSUED', NULL, '2026-11-18 07:29:01'),
  (9, 'INV-8841009', 'A1913666', 224.74, 'EUR', 'ISSUED', NULL, '2026-11-18 07:30:23'),
  (10, 'INV-8841010', 'A1533482', 367.10, 'EUR', 'ISSUED', NULL, '2026-11-18 07:31:32'),
  (11, 'INV-8841011', 'A1067713', 31.72, 'EUR', 'ISSUED', NULL, '2026-11-18 07:32:55'),
  (12, 'INV-8841012', 'A1554209', 36.57, 'EUR', 'ISSUED', NULL, '2026-11-18 07:33:46'),
  (13, 'INV-8841013', 'A1009484', 145.91, 'EUR', 'ISSUED', NULL, '2026-11-18 07:34:38'),
  (14, 'INV-8841014', 'A1338828', 363.37, 'EUR', 'ISSUED', NULL, '2026-11-18 07:35:41'),
  (15, 'INV-8841015', 'A1284190', 54.60, 'EUR', 'ISSUED', NULL, '2026-11-18 07:36:55'),
  (16, 'INV-8841016', 'A1224698', 404.75, 'EUR', 'ISSUED', NULL, '2026-11-18 07:37:57'),
  (17, 'INV-8841017', 'A1322979', 152.50, 'EUR', 'ISSUED', NULL, '2026-11-18 07:39:29'),
  (18, 'INV-8841018', 'A1632784', 244.31, 'EUR', 'ISSUED', NULL, '2026-11-18 07:41:03'),
  (19, 'INV-8841019', 'A1425074', 95.02, 'EUR', 'ISSUED', NULL, '2026-11-18 07:42:26'),
  (20, 'INV-8841020', 'A1925090', 59.33, 'EUR', 'ISSUED', NULL, '2026-11-18 07:43:23'),
  (21, 'INV-8841021', 'A1777771', 57.35, 'EUR', 'ISSUED', NULL, '2026-11-18 07:44:16'),
  (22, 'INV-8841022', 'A1157920', 29.16, 'EUR', 'ISSUED', NULL, '2026-11-18 07:45:10'),
  (23, 'INV-8841023', 'A1799273', 108.96, 'EUR', 'ISSUED', NULL, '2026-11-18 07:46:01'),
  (24, 'INV-8841024', 'A1706456', 85.66, 'EUR', 'ISSUED', NULL, '2026-11-18 07:47:14'),
  (25, 'INV-8841025', 'A1932079', 175.07, 'EUR', 'ISSUED', NULL, '2026-11-18 07:48:16');

INSERT INTO invoices (id, invoice_no, account_id, amount, currency, status, error_code, created_at) VALUES
  (26, 'INV-8841026', 'A1711560', 29.90, 'EUR', 'ISSUED', NULL, '2026-11-18 07:49:39'),
  (27, 'INV-8841027', 'A1225138', 127.11, 'EUR', 'ISSUED', NULL, '2026-11-18 07:50:54'),
  (28, 'INV-8841028', 'A1087775', 378.28, 'EUR', 'ISSUED', NULL, '2026-11-18 07:52:19'),
  (29, 'INV-8841029', 'A1985168', 209.62, 'EUR', 'ISSUED', NULL, '2026-11-18 07:53:37'),
  (30, 'INV-8841030', 'A1282208', 356.16, 'EUR', 'ISSUED', NULL, '2026-11-18 07:54:37'),
  (31, 'INV-8841031', 'A1662370', 177.60, 'EUR', 'ISSUED', NULL, '2026-11-18 07:55:45'),
  (32, 'INV-8841032', 'A1361044', 73.60, 'EUR', 'ISSUED', NULL, '2026-11-18 07:57:02'),
  (33, 'INV-8841033', 'A1787860', 208.00, 'EUR', 'ISSUED', NULL, '2026-11-18 07:58:15'),
  (34, 'INV-8841034', 'A1178522', 193.22, 'EUR', 'ISSUED', NULL, '2026-11-18 07:59:39'),
  (35, 'INV-8841035', 'A1000678', 153.97, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:00:58'),
  (36, 'INV-8841036', 'A1771426', 357.18, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:02:18'),
  (37, 'INV-8841037', 'A1643645', 82.39, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:03:11'),
  (38, 'INV-8841038', 'A1668966', 121.97, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:04:10'),
  (39, 'INV-8841039', 'A1017644', 377.73, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:05:30'),
  (40, 'INV-8841040', 'A1339700', 399.66, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:06:37'),
  (41, 'INV-8841041', 'A1204321', 397.08, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:07:43'),
  (42, 'INV-8841042', 'A1241699', 126.99, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:09:02'),
  (43, 'INV-8841043', 'A1045375', 383.12, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:10:18'),
  (44, 'INV-8841044', 'A1579521', 17.36, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:11:29'),
  (45, 'INV-8841045', 'A1020195', 370.22, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:12:51'),
  (46, 'INV-8841046', 'A1052400', 242.70, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:14:14'),
  (47, 'INV-8841047', 'A1442302', 162.31, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:15:22'),
  (48, 'INV-8841048', 'A1737026', 336.35, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:16:22'),
  (49, 'INV-8841049', 'A1153437', 34.67, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:17:49'),
  (50, 'INV-8841050', 'A1361694', 190.99, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:18:40');

INSERT INTO invoices (id, invoice_no, account_id, amount, currency, status, error_code, created_at) VALUES
  (51, 'INV-8841051', 'A1987441', 304.70, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:20:05'),
  (52, 'INV-8841052', 'A1679499', 116.52, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:21:09'),
  (53, 'INV-8841053', 'A1638384', 203.15, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:22:42'),
  (54, 'INV-8841054', 'A1028922', 211.17, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:23:37'),
  (55, 'INV-8841055', 'A1008516', 322.00, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:24:33'),
  (56, 'INV-8841056', 'A1794655', 253.83, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:25:24'),
  (57, 'INV-8841057', 'A1449718', 110.84, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:26:53'),
  (58, 'INV-8841058', 'A1366600', 265.98, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:28:02'),
  (59, 'INV-8841059', 'A1470294', 418.83, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:28:58'),
  (60, 'INV-8841060', 'A1505477', 88.06, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:30:16'),
  (61, 'INV-8841061', 'A1329210', 142.81, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:31:50'),
  (62, 'INV-8841062', 'A1032464', 96.91, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:33:09'),
  (63, 'INV-8841063', 'A1875412', 79.04, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:34:07'),
  (64, 'INV-8841064', 'A1694664', 55.97, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:35:32'),
  (65, 'INV-8841065', 'A1027995', 378.28, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:36:55'),
  (66, 'INV-8841066', 'A1071945', 386.84, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:37:55'),
  (67, 'INV-8841067', 'A1040508', 193.11, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:39:24'),
  (68, 'INV-8841068', 'A1385791', 106.50, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:40:43'),
  (69, 'INV-8841069', 'A1951422', 12.03, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:41:53'),
  (70, 'INV-8841070', 'A1509750', 65.00, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:42:53'),
  (71, 'INV-8841071', 'A1559439', 263.72, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:43:57'),
  (72, 'INV-8841072', 'A1113406', 387.02, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:45:14'),
  (73, 'INV-8841073', 'A1230460', 296.11, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:46:31'),
  (74, 'INV-8841074', 'A1148906', 173.77, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:48:05'),
  (75, 'INV-8841075', 'A1208331', 370.28, 'EUR', 'FAILED', 'ACCOUNT_LOOKUP_FAILED', '2026-11-18 08:49:24');
