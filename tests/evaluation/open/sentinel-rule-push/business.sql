-- sentinel-rule-push business data: Sentinel rule console history (flow_rules), change tickets, deploy history,
-- the Redis HA drill of the morning, and 5-minute order statistics of 2026-12-16 13:30-15:00.
-- Times are UTC. SQLite- and MariaDB-compatible.

CREATE TABLE flow_rules (
  id INTEGER PRIMARY KEY,
  rule_id INTEGER NOT NULL,
  app VARCHAR(64) NOT NULL,
  env VARCHAR(16) NOT NULL,
  resource VARCHAR(128) NOT NULL,
  grade VARCHAR(16) NOT NULL,
  count_value DECIMAL(10,1) NOT NULL,
  previous_count DECIMAL(10,1),
  cluster_mode SMALLINT NOT NULL,
  threshold_type VARCHAR(16) NOT NULL,
  control_behavior VARCHAR(16) NOT NULL,
  version INTEGER NOT NULL,
  operator VARCHAR(32) NOT NULL,
  note VARCHAR(255),
  pushed_at DATETIME NOT NULL
);

INSERT INTO flow_rules (id, rule_id, app, env, resource, grade, count_value, previous_count, cluster_mode, threshold_type, control_behavior, version, operator, note, pushed_at) VALUES
  (1, 1127, 'pricing-service', 'prod', '/api/trip/estimate', 'QPS', 3000.0, NULL, 1, 'GLOBAL', 'REJECT', 1, 'wu.jian', '预估接口集群流控上线（token server），全局阈值按 2026 春节峰值 1.5 倍', '2026-03-02 10:14:22'),
  (2, 1128, 'pricing-service', 'prod', '/api/trip/price/confirm', 'QPS', 2000.0, NULL, 1, 'GLOBAL', 'REJECT', 1, 'wu.jian', '锁价接口集群流控', '2026-03-02 10:16:05'),
  (3, 1131, 'pricing-service', 'prod', '/api/surge/query', 'QPS', 3000.0, NULL, 1, 'GLOBAL', 'REJECT', 1, 'wu.jian', '动态调价查询集群流控', '2026-03-02 10:17:40'),
  (4, 1127, 'pricing-service', 'prod', '/api/trip/estimate', 'QPS', 5000.0, 3000.0, 1, 'GLOBAL', 'REJECT', 2, 'wu.jian', '国庆前扩容，预估接口全局阈值上调到 5000（CR-20260925-007）', '2026-09-25 16:02:11'),
  (5, 1301, 'trip-api', 'prod', '/api/v1/trip/estimate', 'QPS', 2000.0, NULL, 0, 'SINGLE', 'REJECT', 1, 'sun.ting', '单机阈值，防刷；按 6 个 Pod 计', '2026-05-11 11:20:37'),
  (6, 1302, 'trip-api', 'prod', '/api/v1/trip/order', 'QPS', 800.0, NULL, 0, 'SINGLE', 'REJECT', 1, 'sun.ting', '单机阈值', '2026-05-11 11:21:09'),
  (7, 1410, 'order-service', 'prod', '/api/order/create', 'QPS', 1500.0, NULL, 1, 'GLOBAL', 'REJECT', 1, 'wu.jian', '下单集群流控', '2026-06-18 15:40:52'),
  (8, 2210, 'pricing-service', 'staging', '/api/trip/price/confirm', 'QPS', 200.0, NULL, 0, 'SINGLE', 'REJECT', 1, 'zhou.peng', 'staging 无 token server，统一用单机阈值', '2026-10-20 14:31:18'),
  (9, 2211, 'pricing-service', 'staging', '/api/surge/query', 'QPS', 300.0, NULL, 0, 'SINGLE', 'REJECT', 1, 'zhou.peng', 'staging 单机阈值', '2026-10-20 14:33:02'),
  (10, 2212, 'pricing-service', 'staging', '/api/trip/estimate', 'QPS', 500.0, NULL, 0, 'SINGLE', 'REJECT', 1, 'zhou.peng', 'staging 单机阈值', '2026-10-20 14:34:45'),
  (11, 1410, 'order-service', 'prod', '/api/order/create', 'QPS', 2000.0, 1500.0, 1, 'GLOBAL', 'REJECT', 2, 'wu.jian', '双十二活动前上调', '2026-12-09 10:05:30'),
  (12, 2210, 'pricing-service', 'staging', '/api/trip/price/confirm', 'QPS', 20.0, 200.0, 0, 'SINGLE', 'REJECT', 2, 'zhou.peng', 'PT-0412 staging 压测：锁价接口单机 20，验证限流降级', '2026-12-16 14:07:55'),
  (13, 2211, 'pricing-service', 'staging', '/api/surge/query', 'QPS', 30.0, 300.0, 0, 'SINGLE', 'REJECT', 2, 'zhou.peng', 'PT-0412 staging 压测：动态调价单机 30', '2026-12-16 14:10:43'),
  (14, 1127, 'pricing-service', 'prod', '/api/trip/estimate', 'QPS', 50.0, 5000.0, 0, 'SINGLE', 'REJECT', 3, 'zhou.peng', 'PT-0412 staging 压测：预估接口单机限流 50，验证 trip-api 降级文案', '2026-12-16 14:19:52');

CREATE TABLE change_records (
  id INTEGER PRIMARY KEY,
  change_no VARCHAR(24) NOT NULL,
  change_type VARCHAR(16) NOT NULL,
  target VARCHAR(64) NOT NULL,
  env VARCHAR(16) NOT NULL,
  summary VARCHAR(255) NOT NULL,
  applicant VARCHAR(32) NOT NULL,
  approver VARCHAR(32),
  planned_start DATETIME NOT NULL,
  actual_start DATETIME,
  actual_end DATETIME,
  status VARCHAR(16) NOT NULL
);

INSERT INTO change_records (id, change_no, change_type, target, env, summary, applicant, approver, planned_start, actual_start, actual_end, status) VALUES
  (1, 'CR-20261214-004', '发布', 'pricing-service', 'prod', 'pricing-service v5.6.3：夜间附加费规则支持按城市配置', 'gao.yang', 'wu.jian', '2026-12-14 02:00:00', '2026-12-14 02:03:12', '2026-12-14 02:11:40', '已完成'),
  (2, 'CR-20261215-009', '发布', 'lbs-service', 'prod', 'lbs-service v2.9.0：高德 SDK 升级 5.1.2，地理编码慢调用阈值告警', 'ma.rui', 'he.lin', '2026-12-15 03:00:00', '2026-12-15 03:02:45', '2026-12-15 03:09:02', '已完成'),
  (3, 'CR-20261215-012', '发布', 'order-service', 'prod', 'order-service v4.22.1：取消原因枚举扩展', 'qian.wei', 'wu.jian', '2026-12-15 07:30:00', '2026-12-15 07:31:10', '2026-12-15 07:38:55', '已完成'),
  (4, 'CR-20261216-003', '演练', 'redis-mkt-01', 'prod', '营销 Redis 集群（redis-mkt-01，coupon-service / marketing-service 使用）哨兵主从切换演练，演练结束后切回原主', 'dba.chen', 'he.lin', '2026-12-16 10:00:00', '2026-12-16 10:02:05', '2026-12-16 10:41:37', '已完成'),
  (5, 'CR-20261216-011', '发布', 'trip-api', 'prod', 'trip-api v3.18.0：行程分享卡片改版、预估页文案调整、pricing Feign 连接池 maxConnections 200->400', 'sun.ting', 'wu.jian', '2026-12-16 13:55:00', '2026-12-16 13:55:10', '2026-12-16 13:59:48', '已完成'),
  (6, 'CR-20261216-014', '压测', 'pricing-service', 'staging', 'PT-0412 预估链路 staging 压测准备：调整 staging 环境 pricing-service 限流规则（仅 staging），16:00 开始压测', 'zhou.peng', 'gao.yang', '2026-12-16 14:00:00', '2026-12-16 14:03:11', NULL, '进行中'),
  (7, 'CR-20261217-002', '配置', 'order-service', 'prod', '下单风控校验超时 300ms -> 500ms', 'qian.wei', NULL, '2026-12-17 02:00:00', NULL, NULL, '待审批');

CREATE TABLE ha_drill_steps (
  id INTEGER PRIMARY KEY,
  change_no VARCHAR(24) NOT NULL,
  cluster VARCHAR(32) NOT NULL,
  step VARCHAR(128) NOT NULL,
  detail VARCHAR(255),
  executed_at DATETIME NOT NULL,
  result VARCHAR(16) NOT NULL
);

INSERT INTO ha_drill_steps (id, change_no, cluster, step, detail, executed_at, result) VALUES
  (1, 'CR-20261216-003', 'redis-mkt-01', '演练前检查', 'master=10.20.9.11:6379 slaves=2 repl_offset 一致，sentinel quorum=2/3', '2026-12-16 10:02:05', '通过'),
  (2, 'CR-20261216-003', 'redis-mkt-01', 'SENTINEL failover mkt-master', '新主 10.20.9.12:6379，切换耗时 6.8s，客户端重连 coupon-service 12/12、marketing-service 6/6', '2026-12-16 10:12:31', '通过'),
  (3, 'CR-20261216-003', 'redis-mkt-01', '业务观察 15 分钟', 'coupon-service 错误率峰值 0.8%（切换期间 6s），之后正常', '2026-12-16 10:28:00', '通过'),
  (4, 'CR-20261216-003', 'redis-mkt-01', '切回原主', '主 10.20.9.11:6379，切换耗时 5.9s', '2026-12-16 10:36:48', '通过'),
  (5, 'CR-20261216-003', 'redis-mkt-01', '演练结束检查', '主从复制正常，无数据丢失；redis-pricing-01、redis-order-01 未参与演练', '2026-12-16 10:41:37', '通过');

CREATE TABLE deployments (
  id INTEGER PRIMARY KEY,
  service VARCHAR(64) NOT NULL,
  version VARCHAR(32) NOT NULL,
  previous_version VARCHAR(32),
  started_at DATETIME NOT NULL,
  finished_at DATETIME,
  deployed_by VARCHAR(64) NOT NULL,
  change_no VARCHAR(24) NOT NULL,
  status VARCHAR(16) NOT NULL
);

INSERT INTO deployments (id, service, version, previous_version, started_at, finished_at, deployed_by, change_no, status) VALUES
  (1, 'pricing-service', 'v5.6.3', 'v5.6.2', '2026-12-14 02:03:12', '2026-12-14 02:11:40', 'deploy-bot', 'CR-20261214-004', 'SUCCEEDED'),
  (2, 'lbs-service', 'v2.9.0', 'v2.8.4', '2026-12-15 03:02:45', '2026-12-15 03:09:02', 'deploy-bot', 'CR-20261215-009', 'SUCCEEDED'),
  (3, 'order-service', 'v4.22.1', 'v4.22.0', '2026-12-15 07:31:10', '2026-12-15 07:38:55', 'deploy-bot', 'CR-20261215-012', 'SUCCEEDED'),
  (4, 'trip-api', 'v3.18.0', 'v3.17.2', '2026-12-16 13:55:10', '2026-12-16 13:59:48', 'deploy-bot', 'CR-20261216-011', 'SUCCEEDED');

CREATE TABLE order_stats_5min (
  id INTEGER PRIMARY KEY,
  window_start DATETIME NOT NULL,
  estimate_requests INTEGER NOT NULL,
  estimate_success INTEGER NOT NULL,
  orders_created INTEGER NOT NULL,
  orders_cancelled INTEGER NOT NULL,
  gmv DECIMAL(12,2) NOT NULL
);

INSERT INTO order_stats_5min (id, window_start, estimate_requests, estimate_success, orders_created, orders_cancelled, gmv) VALUES
  (1, '2026-12-16 13:30:00', 941412, 941412, 6977, 430, 228204.64),
  (2, '2026-12-16 13:35:00', 946811, 946811, 7062, 433, 236740.98),
  (3, '2026-12-16 13:40:00', 964170, 964170, 7030, 469, 237860.41),
  (4, '2026-12-16 13:45:00', 960354, 960354, 7140, 409, 227687.86),
  (5, '2026-12-16 13:50:00', 969918, 969918, 7057, 402, 239229.83),
  (6, '2026-12-16 13:55:00', 968328, 968328, 7063, 410, 223671.89),
  (7, '2026-12-16 14:00:00', 974010, 974010, 7093, 424, 231005.19),
  (8, '2026-12-16 14:05:00', 974736, 974736, 7155, 417, 242722.91),
  (9, '2026-12-16 14:10:00', 989922, 989922, 7149, 401, 230442.74),
  (10, '2026-12-16 14:15:00', 987528, 968880, 7218, 437, 231286.03),
  (11, '2026-12-16 14:20:00', 1201722, 118932, 2483, 153, 82757.18),
  (12, '2026-12-16 14:25:00', 1264548, 119550, 2168, 125, 71930.41),
  (13, '2026-12-16 14:30:00', 1287108, 143034, 2366, 152, 81561.97),
  (14, '2026-12-16 14:35:00', 1274219, 179058, 2790, 174, 87895.14),
  (15, '2026-12-16 14:40:00', 1285272, 178812, 2745, 160, 92006.82),
  (16, '2026-12-16 14:45:00', 1298766, 178590, 2772, 178, 90888.0),
  (17, '2026-12-16 14:50:00', 1305660, 178620, 2725, 182, 88078.0),
  (18, '2026-12-16 14:55:00', 1329024, 178374, 2673, 158, 86518.81);
