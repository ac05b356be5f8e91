-- replica-lag 业务数据：调度任务与运行记录、配置变更、发布记录、订单样本与客服工单（2026-12-10 09:15-10:45）。
-- 兼容 SQLite 与 MariaDB。

CREATE TABLE scheduled_jobs (
  id INTEGER PRIMARY KEY,
  job_name VARCHAR(64) NOT NULL,
  service VARCHAR(64) NOT NULL,
  cron_expr VARCHAR(32) NOT NULL,
  datasource VARCHAR(64) NOT NULL,
  write_mode VARCHAR(64) NOT NULL,
  owner VARCHAR(32) NOT NULL,
  enabled INTEGER NOT NULL,
  updated_at DATETIME NOT NULL,
  updated_by VARCHAR(32) NOT NULL,
  change_id VARCHAR(16)
);

INSERT INTO scheduled_jobs (id, job_name, service, cron_expr, datasource, write_mode, owner, enabled, updated_at, updated_by, change_id) VALUES
  (1, 'daily_order_snapshot', 'report-batch', '0 10 * * *', 'orders-db-primary', '单事务 DELETE + INSERT ... SELECT（近 30 天）', 'data-platform', 1, '2026-12-09 15:32:18', 'zhao.lei', 'CHG-91244'),
  (2, 'hourly_refund_stats', 'report-batch', '15 * * * *', 'dw-clickhouse', 'INSERT 批量 5000 行', 'data-platform', 1, '2026-10-14 11:02:40', 'sun.yue', 'CHG-88012'),
  (3, 'order_archive', 'order-service', '30 3 * * *', 'orders-db-primary', '分批 DELETE，每批 2000 行，批间 sleep 200ms', 'trade-core', 1, '2026-08-21 17:45:03', 'he.jun', 'CHG-85530'),
  (4, 'unpaid_order_close', 'order-service', '*/5 * * * *', 'orders-db-primary', 'UPDATE 每批 200 行', 'trade-core', 1, '2026-06-03 10:11:52', 'he.jun', 'CHG-82107'),
  (5, 'coupon_expire_sweep', 'coupon-service', '*/10 * * * *', 'coupon-db', 'UPDATE 每批 1000 行', 'marketing-tech', 1, '2026-11-28 09:40:00', 'qian.lu', 'CHG-90731'),
  (6, 'payment_reconcile', 'payment-service', '*/15 * * * *', 'payments-db', 'INSERT 批量 500 行', 'payment', 1, '2026-09-30 16:20:33', 'lin.tao', 'CHG-87002');

CREATE TABLE job_runs (
  id INTEGER PRIMARY KEY,
  run_id VARCHAR(24) NOT NULL,
  job_name VARCHAR(64) NOT NULL,
  started_at DATETIME NOT NULL,
  finished_at DATETIME,
  status VARCHAR(16) NOT NULL,
  rows_affected INTEGER,
  trigger_type VARCHAR(16) NOT NULL,
  note VARCHAR(255)
);

INSERT INTO job_runs (id, run_id, job_name, started_at, finished_at, status, rows_affected, trigger_type, note) VALUES
  (1, 'RB-20261203-0200', 'daily_order_snapshot', '2026-12-03 02:00:03', '2026-12-03 02:09:10', 'SUCCEEDED', 35777033, 'schedule', NULL),
  (2, 'RB-20261204-0200', 'daily_order_snapshot', '2026-12-04 02:00:04', '2026-12-04 02:08:59', 'SUCCEEDED', 36039834, 'schedule', NULL),
  (3, 'RB-20261205-0200', 'daily_order_snapshot', '2026-12-05 02:00:04', '2026-12-05 02:09:07', 'SUCCEEDED', 35829565, 'schedule', NULL),
  (4, 'RB-20261206-0200', 'daily_order_snapshot', '2026-12-06 02:00:03', '2026-12-06 02:08:28', 'SUCCEEDED', 35793616, 'schedule', NULL),
  (5, 'RB-20261207-0200', 'daily_order_snapshot', '2026-12-07 02:00:03', '2026-12-07 02:09:11', 'SUCCEEDED', 35332437, 'schedule', NULL),
  (6, 'RB-20261208-0200', 'daily_order_snapshot', '2026-12-08 02:00:03', '2026-12-08 02:09:47', 'SUCCEEDED', 35478276, 'schedule', NULL),
  (7, 'RB-20261209-0200', 'daily_order_snapshot', '2026-12-09 02:00:03', '2026-12-09 02:09:33', 'SUCCEEDED', 35896098, 'schedule', NULL),
  (8, 'RB-20261210-1000', 'daily_order_snapshot', '2026-12-10 10:00:03', '2026-12-10 10:09:14', 'SUCCEEDED', 36114787, 'schedule', '首次按新调度 0 10 * * * 运行'),
  (9, 'RB-20261210-0915', 'hourly_refund_stats', '2026-12-10 09:15:03', '2026-12-10 09:15:08', 'SUCCEEDED', 1284, 'schedule', NULL),
  (10, 'RB-20261210-1015', 'hourly_refund_stats', '2026-12-10 10:15:03', '2026-12-10 10:15:07', 'SUCCEEDED', 1377, 'schedule', NULL),
  (11, 'OA-20261210-0330', 'order_archive', '2026-12-10 03:30:00', '2026-12-10 03:52:41', 'SUCCEEDED', 412880, 'schedule', NULL);

CREATE TABLE config_changes (
  id INTEGER PRIMARY KEY,
  change_id VARCHAR(16) NOT NULL,
  target VARCHAR(64) NOT NULL,
  config_key VARCHAR(96) NOT NULL,
  old_value VARCHAR(64),
  new_value VARCHAR(64),
  changed_by VARCHAR(32) NOT NULL,
  reason VARCHAR(255),
  applied_at DATETIME NOT NULL
);

INSERT INTO config_changes (id, change_id, target, config_key, old_value, new_value, changed_by, reason, applied_at) VALUES
  (1, 'CHG-90731', 'coupon-service', 'coupon.cache.ttl-seconds', '300', '600', 'qian.lu', '双十二活动期间降低 coupon-db 压力', '2026-11-28 09:40:00'),
  (2, 'CHG-91018', 'order-query-service', 'spring.datasource.ro.hikari.maximum-pool-size', '20', '30', 'ma.rui', '双十二读流量预估 +40%', '2026-12-05 14:12:51'),
  (3, 'CHG-91160', 'recommend-service', 'feature-store.client.timeout-ms', '150', '100', 'guo.hao', '首页 P99 治理：特征超时即降级热门榜', '2026-12-08 11:30:27'),
  (4, 'CHG-91244', 'report-batch', 'daily_order_snapshot.schedule', '0 2 * * *', '0 10 * * *', 'zhao.lei', '02:00 与数仓全量抽数窗口冲突（DW-311），改为 10:00 运行', '2026-12-09 15:32:18'),
  (5, 'CHG-91290', 'api-gateway', 'ratelimit.client.miniapp.qps', '800', '1000', 'xu.bin', '小程序双十二预热流量', '2026-12-10 08:50:06');

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
  (1, 'CHG-91102', 'payment-service', 'v4.7.3', 'v4.7.2', 'SUCCEEDED', 'deploy-bot', '云闪付回调验签库升级', '2026-12-08 10:05:12', '2026-12-08 10:09:40'),
  (2, 'CHG-91215', 'order-service', 'v5.2.0', 'v5.1.6', 'SUCCEEDED', 'deploy-bot', '订单备注字段长度 200 -> 500', '2026-12-09 11:20:31', '2026-12-09 11:26:02'),
  (3, 'CHG-91281', 'customer-support-api', 'v3.3.0', 'v3.2.5', 'SUCCEEDED', 'deploy-bot', '工单分类新增“物流异常”', '2026-12-10 08:40:15', '2026-12-10 08:42:09'),
  (4, 'CHG-91307', 'order-query-service', 'v2.14.2', 'v2.14.1', 'SUCCEEDED', 'deploy-bot', '升级 fastjson2 2.0.52 -> 2.0.53；访问日志字段调整（无业务逻辑变更）', '2026-12-10 09:27:10', '2026-12-10 09:29:05');

CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  order_id VARCHAR(16) NOT NULL,
  user_id VARCHAR(16) NOT NULL,
  status VARCHAR(16) NOT NULL,
  amount_cny DECIMAL(10, 2) NOT NULL,
  pay_id VARCHAR(24),
  pay_channel VARCHAR(16),
  created_at DATETIME NOT NULL,
  paid_at DATETIME
);

INSERT INTO orders (id, order_id, user_id, status, amount_cny, pay_id, pay_channel, created_at, paid_at) VALUES
  (1, 'ord_7712416', 'u_1360498', 'UNPAID', 642.99, NULL, NULL, '2026-12-10 09:15:25', NULL),
  (2, 'ord_7712453', 'u_6626460', 'PAID', 341.27, 'pay_031b837bd', 'wechat', '2026-12-10 09:17:19', '2026-12-10 09:18:14'),
  (3, 'ord_7712490', 'u_6112844', 'PAID', 488.18, 'pay_08b6b86e4', 'wechat', '2026-12-10 09:20:20', '2026-12-10 09:20:45'),
  (4, 'ord_7712531', 'u_6829493', 'PAID', 556.87, 'pay_7c0c82b30', 'wechat', '2026-12-10 09:21:17', '2026-12-10 09:21:33'),
  (5, 'ord_7712568', 'u_8118553', 'PAID', 539.88, 'pay_a8abf5663', 'alipay', '2026-12-10 09:22:36', '2026-12-10 09:23:06'),
  (6, 'ord_7712609', 'u_5612834', 'PAID', 57.04, 'pay_f41aa45a4', 'wechat', '2026-12-10 09:26:50', '2026-12-10 09:27:56'),
  (7, 'ord_7712644', 'u_7765332', 'PAID', 562.24, 'pay_29df9f965', 'wechat', '2026-12-10 09:28:55', '2026-12-10 09:30:07'),
  (8, 'ord_7712680', 'u_8421867', 'PAID', 537.8, 'pay_9c13e2c3e', 'alipay', '2026-12-10 09:31:38', '2026-12-10 09:32:26'),
  (9, 'ord_7712723', 'u_2532870', 'PAID', 43.65, 'pay_e31d2a8f2', 'unionpay', '2026-12-10 09:33:13', '2026-12-10 09:33:50'),
  (10, 'ord_7712763', 'u_6477481', 'UNPAID', 194.45, NULL, NULL, '2026-12-10 09:33:25', NULL),
  (11, 'ord_7712795', 'u_5496934', 'PAID', 486.53, 'pay_eb65e2dab', 'unionpay', '2026-12-10 09:35:48', '2026-12-10 09:37:00'),
  (12, 'ord_7712829', 'u_6022370', 'PAID', 411.87, 'pay_26daaf51b', 'wechat', '2026-12-10 09:38:04', '2026-12-10 09:38:58'),
  (13, 'ord_7712870', 'u_2309267', 'UNPAID', 464.75, NULL, NULL, '2026-12-10 09:39:42', NULL),
  (14, 'ord_7712906', 'u_9840825', 'PAID', 547.93, 'pay_01efb4087', 'wechat', '2026-12-10 09:43:50', '2026-12-10 09:44:55'),
  (15, 'ord_7712947', 'u_2392394', 'PAID', 149.23, 'pay_040f6c61f', 'wechat', '2026-12-10 09:46:00', '2026-12-10 09:47:24'),
  (16, 'ord_7712983', 'u_6488657', 'UNPAID', 49.14, NULL, NULL, '2026-12-10 09:48:53', NULL),
  (17, 'ord_7713027', 'u_5019695', 'PAID', 679.36, 'pay_e58e1b769', 'wechat', '2026-12-10 09:51:10', '2026-12-10 09:52:32'),
  (18, 'ord_7713063', 'u_6833772', 'PAID', 273.75, 'pay_a9cee4a71', 'alipay', '2026-12-10 09:53:15', '2026-12-10 09:53:41'),
  (19, 'ord_7713109', 'u_8093552', 'UNPAID', 488.55, NULL, NULL, '2026-12-10 09:54:01', NULL),
  (20, 'ord_7713151', 'u_9936748', 'UNPAID', 528.09, NULL, NULL, '2026-12-10 09:59:16', NULL),
  (21, 'ord_7713185', 'u_8606981', 'PAID', 520.96, 'pay_9d81d37f5', 'unionpay', '2026-12-10 10:03:55', '2026-12-10 10:04:12'),
  (22, 'ord_7713222', 'u_5270120', 'PAID', 102.76, 'pay_3cf726be3', 'wechat', '2026-12-10 10:05:35', '2026-12-10 10:06:40'),
  (23, 'ord_7713262', 'u_1666950', 'UNPAID', 666.65, NULL, NULL, '2026-12-10 10:07:45', NULL),
  (24, 'ord_7713273', 'u_5208104', 'PAID', 458.28, 'pay_f0e2b0783', 'wechat', '2026-12-10 10:07:46', '2026-12-10 10:08:47'),
  (25, 'ord_7713283', 'u_5912788', 'PAID', 42.55, 'pay_a6ee1f0c7', 'alipay', '2026-12-10 10:07:49', '2026-12-10 10:08:35'),
  (26, 'ord_7713294', 'u_7969505', 'PAID', 330.41, 'pay_1d666810e', 'wechat', '2026-12-10 10:07:51', '2026-12-10 10:08:43'),
  (27, 'ord_7713321', 'u_8471075', 'PAID', 283.1, 'pay_2aa86fc67', 'alipay', '2026-12-10 10:09:37', '2026-12-10 10:10:42'),
  (28, 'ord_7713337', 'u_8372879', 'PAID', 156.48, 'pay_1a799cc74', 'wechat', '2026-12-10 10:09:59', '2026-12-10 10:10:17'),
  (29, 'ord_7713350', 'u_3289708', 'PAID', 136.51, 'pay_94ee62593', 'unionpay', '2026-12-10 10:11:32', '2026-12-10 10:12:35'),
  (30, 'ord_7713366', 'u_8877282', 'PAID', 234.91, 'pay_86f7cf0e1', 'unionpay', '2026-12-10 10:11:47', '2026-12-10 10:13:04'),
  (31, 'ord_7713377', 'u_9492695', 'PAID', 38.64, 'pay_d3da7ff76', 'unionpay', '2026-12-10 10:12:39', '2026-12-10 10:13:19'),
  (32, 'ord_7713407', 'u_6639188', 'PAID', 463.65, 'pay_51c6c8fa8', 'alipay', '2026-12-10 10:14:55', '2026-12-10 10:15:40'),
  (33, 'ord_7713418', 'u_6820585', 'PAID', 405.78, 'pay_1fc5dffd1', 'unionpay', '2026-12-10 10:14:58', '2026-12-10 10:15:38'),
  (34, 'ord_7713428', 'u_8507497', 'PAID', 663.83, 'pay_fb145ba1c', 'unionpay', '2026-12-10 10:15:13', '2026-12-10 10:16:35'),
  (35, 'ord_7713444', 'u_8157895', 'PAID', 304.83, 'pay_7df1da66e', 'alipay', '2026-12-10 10:15:30', '2026-12-10 10:16:10'),
  (36, 'ord_7713455', 'u_2821786', 'PAID', 373.78, 'pay_9b672ab02', 'wechat', '2026-12-10 10:19:05', '2026-12-10 10:20:00'),
  (37, 'ord_7713471', 'u_2929332', 'PAID', 524.49, 'pay_9c0e70833', 'alipay', '2026-12-10 10:20:10', '2026-12-10 10:21:06'),
  (38, 'ord_7713485', 'u_6082312', 'PAID', 559.79, 'pay_e68d6ad5f', 'wechat', '2026-12-10 10:20:10', '2026-12-10 10:21:22'),
  (39, 'ord_7713499', 'u_1196103', 'PAID', 520.25, 'pay_99b1d4b93', 'unionpay', '2026-12-10 10:20:10', '2026-12-10 10:20:35'),
  (40, 'ord_7713508', 'u_1320465', 'PAID', 254.1, 'pay_ff2ae430a', 'alipay', '2026-12-10 10:20:11', '2026-12-10 10:21:08'),
  (41, 'ord_7713521', 'u_4591614', 'PAID', 159.43, 'pay_dd9e38187', 'alipay', '2026-12-10 10:20:16', '2026-12-10 10:20:35'),
  (42, 'ord_7713531', 'u_5002251', 'PAID', 495.06, 'pay_fa52d89f8', 'alipay', '2026-12-10 10:20:31', '2026-12-10 10:20:46'),
  (43, 'ord_7713548', 'u_8723125', 'PAID', 663.43, 'pay_3109271d6', 'alipay', '2026-12-10 10:21:43', '2026-12-10 10:22:37'),
  (44, 'ord_7713565', 'u_6679089', 'PAID', 50.3, 'pay_92d1e481d', 'unionpay', '2026-12-10 10:22:00', '2026-12-10 10:23:09'),
  (45, 'ord_7713575', 'u_5534832', 'PAID', 519.35, 'pay_f3fa37c47', 'unionpay', '2026-12-10 10:22:23', '2026-12-10 10:22:46'),
  (46, 'ord_7713592', 'u_9741624', 'PAID', 89.32, 'pay_312c03628', 'wechat', '2026-12-10 10:24:03', '2026-12-10 10:25:19'),
  (47, 'ord_7713607', 'u_1464533', 'PAID', 143.79, 'pay_7a147189d', 'wechat', '2026-12-10 10:24:30', '2026-12-10 10:25:16'),
  (48, 'ord_7713624', 'u_9744924', 'PAID', 66.93, 'pay_e169ebf91', 'alipay', '2026-12-10 10:24:35', '2026-12-10 10:25:32'),
  (49, 'ord_7713635', 'u_9386281', 'PAID', 276.55, 'pay_40350c066', 'alipay', '2026-12-10 10:24:38', '2026-12-10 10:25:53'),
  (50, 'ord_7713647', 'u_8909040', 'PAID', 531.18, 'pay_492f6da3d', 'wechat', '2026-12-10 10:24:40', '2026-12-10 10:25:10'),
  (51, 'ord_7713663', 'u_6810273', 'PAID', 121.63, 'pay_6894f2b1b', 'alipay', '2026-12-10 10:24:47', '2026-12-10 10:25:23'),
  (52, 'ord_7713673', 'u_6464671', 'PAID', 160.64, 'pay_91ba58fff', 'unionpay', '2026-12-10 10:25:15', '2026-12-10 10:26:29'),
  (53, 'ord_7713682', 'u_2755795', 'PAID', 377.49, 'pay_5ee47a5c0', 'unionpay', '2026-12-10 10:25:27', '2026-12-10 10:26:04'),
  (54, 'ord_7713698', 'u_9390660', 'PAID', 267.11, 'pay_47259fbd8', 'unionpay', '2026-12-10 10:26:57', '2026-12-10 10:28:14'),
  (55, 'ord_7713711', 'u_5388719', 'PAID', 317.78, 'pay_52fd2693c', 'wechat', '2026-12-10 10:27:06', '2026-12-10 10:27:33'),
  (56, 'ord_7713740', 'u_7085734', 'UNPAID', 507.28, NULL, NULL, '2026-12-10 10:28:54', NULL),
  (57, 'ord_7713782', 'u_8371436', 'PAID', 58.03, 'pay_d021afe01', 'wechat', '2026-12-10 10:30:36', '2026-12-10 10:31:02'),
  (58, 'ord_7713817', 'u_6307614', 'PAID', 233.99, 'pay_f698a7bae', 'alipay', '2026-12-10 10:31:20', '2026-12-10 10:32:08'),
  (59, 'ord_7713861', 'u_6294609', 'PAID', 42.06, 'pay_f31074d79', 'alipay', '2026-12-10 10:32:40', '2026-12-10 10:34:03'),
  (60, 'ord_7713906', 'u_6769889', 'PAID', 121.45, 'pay_a96f71c1f', 'wechat', '2026-12-10 10:35:48', '2026-12-10 10:36:15');

CREATE TABLE support_tickets (
  id INTEGER PRIMARY KEY,
  ticket_id VARCHAR(24) NOT NULL,
  category VARCHAR(32) NOT NULL,
  order_id VARCHAR(16),
  user_id VARCHAR(16) NOT NULL,
  description VARCHAR(255),
  status VARCHAR(16) NOT NULL,
  created_at DATETIME NOT NULL
);

INSERT INTO support_tickets (id, ticket_id, category, order_id, user_id, description, status, created_at) VALUES
  (1, 'TK2026121001042', '退款进度', NULL, 'u_6612747', '退货已签收，退款什么时候到', 'CLOSED', '2026-12-10 09:17:32'),
  (2, 'TK2026121001043', '退款进度', NULL, 'u_9293420', '退货已签收，退款什么时候到', 'CLOSED', '2026-12-10 09:22:01'),
  (3, 'TK2026121001046', '发票', NULL, 'u_5490854', '需要开具增值税专用发票', 'CLOSED', '2026-12-10 09:28:43'),
  (4, 'TK2026121001049', '修改收货地址', NULL, 'u_9642565', '下单后想改收货地址', 'CLOSED', '2026-12-10 09:32:12'),
  (5, 'TK2026121001052', '退款进度', NULL, 'u_5337377', '退货已签收，退款什么时候到', 'CLOSED', '2026-12-10 09:36:34'),
  (6, 'TK2026121001054', '退款进度', NULL, 'u_7458757', '申请退款三天了还没到账', 'CLOSED', '2026-12-10 09:40:42'),
  (7, 'TK2026121001055', '优惠券', NULL, 'u_8853386', '满减券下单时没有生效', 'CLOSED', '2026-12-10 09:46:39'),
  (8, 'TK2026121001057', '退款进度', NULL, 'u_2557471', '申请退款三天了还没到账', 'CLOSED', '2026-12-10 09:50:44'),
  (9, 'TK2026121001060', '发票', NULL, 'u_5122022', '需要开具增值税专用发票', 'CLOSED', '2026-12-10 09:56:58'),
  (10, 'TK2026121001061', '退款进度', NULL, 'u_2473823', '申请退款三天了还没到账', 'CLOSED', '2026-12-10 10:01:46'),
  (11, 'TK2026121001063', '退款进度', NULL, 'u_6035602', '申请退款三天了还没到账', 'CLOSED', '2026-12-10 10:05:23'),
  (12, 'TK2026121001066', '支付后订单异常', 'ord_7713283', 'u_5912788', '付完钱订单找不到了，是不是被吞了', 'PENDING_L2', '2026-12-10 10:09:38'),
  (13, 'TK2026121001068', '支付后订单异常', 'ord_7713273', 'u_5208104', '已经付款了，订单页提示订单不存在', 'PENDING_L2', '2026-12-10 10:11:51'),
  (14, 'TK2026121001069', '发票', NULL, 'u_4243987', '需要开具增值税专用发票', 'CLOSED', '2026-12-10 10:12:12'),
  (15, 'TK2026121001070', '优惠券', NULL, 'u_8371270', '满减券下单时没有生效', 'CLOSED', '2026-12-10 10:15:38'),
  (16, 'TK2026121001073', '支付后订单异常', 'ord_7713366', 'u_8877282', '支付成功后显示订单不存在，请核实', 'PENDING_L2', '2026-12-10 10:15:53'),
  (17, 'TK2026121001075', '发票', NULL, 'u_6820525', '需要开具增值税专用发票', 'OPEN', '2026-12-10 10:20:38'),
  (18, 'TK2026121001077', '支付后订单异常', 'ord_7713407', 'u_6639188', '付完钱订单找不到了，是不是被吞了', 'PENDING_L2', '2026-12-10 10:21:42'),
  (19, 'TK2026121001079', '支付后订单异常', 'ord_7713418', 'u_6820585', '已经付款了，订单页提示订单不存在', 'PENDING_L2', '2026-12-10 10:21:48'),
  (20, 'TK2026121001080', '支付后订单异常', 'ord_7713428', 'u_8507497', '付完钱订单找不到了，是不是被吞了', 'PENDING_L2', '2026-12-10 10:22:58'),
  (21, 'TK2026121001081', '支付后订单异常', 'ord_7713521', 'u_4591614', '支付成功后显示订单不存在，请核实', 'PENDING_L2', '2026-12-10 10:23:07'),
  (22, 'TK2026121001083', '支付后订单异常', 'ord_7713531', 'u_5002251', '微信扣款成功，我的订单里没有这一单', 'PENDING_L2', '2026-12-10 10:23:25'),
  (23, 'TK2026121001085', '支付后订单异常', 'ord_7713471', 'u_2929332', '付完钱订单找不到了，是不是被吞了', 'PENDING_L2', '2026-12-10 10:23:27'),
  (24, 'TK2026121001087', '支付后订单异常', 'ord_7713455', 'u_2821786', '微信扣款成功，我的订单里没有这一单', 'PENDING_L2', '2026-12-10 10:23:46'),
  (25, 'TK2026121001090', '优惠券', NULL, 'u_2941511', '满减券下单时没有生效', 'OPEN', '2026-12-10 10:24:28'),
  (26, 'TK2026121001091', '支付后订单异常', 'ord_7713575', 'u_5534832', '已经付款了，订单页提示订单不存在', 'PENDING_L2', '2026-12-10 10:25:28'),
  (27, 'TK2026121001094', '支付后订单异常', 'ord_7713508', 'u_1320465', '付完钱订单找不到了，是不是被吞了', 'PENDING_L2', '2026-12-10 10:26:37'),
  (28, 'TK2026121001096', '支付后订单异常', 'ord_7713635', 'u_9386281', '付完钱订单找不到了，是不是被吞了', 'PENDING_L2', '2026-12-10 10:28:27'),
  (29, 'TK2026121001098', '物流查询', NULL, 'u_1784034', '物流三天没有更新', 'OPEN', '2026-12-10 10:28:28'),
  (30, 'TK2026121001099', '支付后订单异常', 'ord_7713647', 'u_8909040', '已经付款了，订单页提示订单不存在', 'OPEN', '2026-12-10 10:28:45'),
  (31, 'TK2026121001102', '支付后订单异常', 'ord_7713548', 'u_8723125', '微信扣款成功，我的订单里没有这一单', 'OPEN', '2026-12-10 10:28:59'),
  (32, 'TK2026121001104', '支付后订单异常', 'ord_7713673', 'u_6464671', '微信扣款成功，我的订单里没有这一单', 'OPEN', '2026-12-10 10:30:51'),
  (33, 'TK2026121001105', '支付后订单异常', 'ord_7713663', 'u_6810273', '已经付款了，订单页提示订单不存在', 'OPEN', '2026-12-10 10:31:26'),
  (34, 'TK2026121001107', '支付后订单异常', 'ord_7713624', 'u_9744924', '微信扣款成功，我的订单里没有这一单', 'OPEN', '2026-12-10 10:31:28'),
  (35, 'TK2026121001109', '支付后订单异常', 'ord_7713682', 'u_2755795', '支付成功后显示订单不存在，请核实', 'OPEN', '2026-12-10 10:32:14'),
  (36, 'TK2026121001112', '支付后订单异常', 'ord_7713711', 'u_5388719', '微信扣款成功，我的订单里没有这一单', 'OPEN', '2026-12-10 10:32:36'),
  (37, 'TK2026121001113', '发票', NULL, 'u_4625442', '需要开具增值税专用发票', 'OPEN', '2026-12-10 10:32:38'),
  (38, 'TK2026121001116', '支付后订单异常', 'ord_7713698', 'u_9390660', '支付完成后订单仍提示去支付', 'OPEN', '2026-12-10 10:34:39'),
  (39, 'TK2026121001117', '修改收货地址', NULL, 'u_6051082', '下单后想改收货地址', 'OPEN', '2026-12-10 10:36:09'),
  (40, 'TK2026121001120', '发票', NULL, 'u_7643614', '需要开具增值税专用发票', 'OPEN', '2026-12-10 10:42:54');
