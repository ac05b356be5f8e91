-- cache-ttl-stampede business data: config center releases and current values, deploy history, scheduled
-- database maintenance, 5-minute order statistics and customer-service tickets of 2026-12-11 18:30-20:00.
-- Times are UTC. SQLite- and MariaDB-compatible.

CREATE TABLE config_changes (
  id INTEGER PRIMARY KEY,
  release_key VARCHAR(40) NOT NULL,
  app_id VARCHAR(64) NOT NULL,
  namespace VARCHAR(32) NOT NULL,
  config_key VARCHAR(96) NOT NULL,
  old_value VARCHAR(64),
  new_value VARCHAR(64),
  operator VARCHAR(32) NOT NULL,
  reviewer VARCHAR(32),
  comment VARCHAR(255),
  released_at DATETIME NOT NULL
);

INSERT INTO config_changes (id, release_key, app_id, namespace, config_key, old_value, new_value, operator, reviewer, comment, released_at) VALUES
  (1, '20261014102233-6a1e09c4d2f7b331', 'menu-service', 'application', 'menu.cache.ttl', '1800', '3600', 'wang.lei', 'zhao.min', '菜单缓存TTL延长到1小时，降低menu-db读压力（商家改价由主动失效保证）', '2026-10-14 10:22:33'),
  (2, '20261120153008-b07c3e5f1a9d2264', 'menu-service', 'application', 'menu.cache.warmup.top-n', '15000', '18000', 'wang.lei', 'zhao.min', '双十二前扩大热门门店预热范围', '2026-11-20 15:30:08'),
  (3, '20261203151240-0c77e9a1d4b3f285', 'order-api', 'feign', 'feign.client.config.menu-service.read-timeout', '3000', '2000', 'sun.hao', 'he.yu', '菜单接口超时收紧，配合 Sentinel 熔断', '2026-12-03 15:12:40'),
  (4, '20261208110415-93fd2a7b6c0e1d58', 'rider-dispatch', 'dispatch', 'dispatch.zone.max-radius-km', '5.0', '4.5', 'chen.jie', 'xu.ting', '缩小派单半径，降低超时单', '2026-12-08 11:04:15'),
  (5, '20261209164452-1d8b4f0e7a3c9925', 'menu-service', 'application', 'menu.price-check.batch-size', '20', '50', 'liu.yang', 'wang.lei', '下单价格校验批量查询', '2026-12-09 16:44:52'),
  (6, '20261210100317-e4a2c7919b6f0d03', 'order-api', 'application', 'order.coupon.stack.enabled', 'false', 'true', 'sun.hao', 'he.yu', '优惠券叠加（随 v2.31.0 灰度）', '2026-12-10 10:03:17'),
  (7, '20261211142650-7c0b5d3e81f9a6c2', 'order-api', 'sentinel', 'sentinel.degrade.menu-service.slow-ratio', '0.6', '0.5', 'sun.hao', 'he.yu', '晚高峰前收紧菜单接口熔断阈值', '2026-12-11 14:26:50'),
  (8, '20261211184736-5be0d21f93a7c480', 'rider-dispatch', 'dispatch', 'dispatch.batch.window-ms', '3000', '2500', 'chen.jie', 'xu.ting', '晚高峰派单批次窗口 3000ms -> 2500ms', '2026-12-11 18:47:36'),
  (9, '20261211190011-a41f3c8e27d9b614', 'menu-service', 'application', 'menu.cache.ttl', '3600', '5', 'liu.yang', NULL, '菜单缓存过期时间调整为5分钟，商家改价更快生效 MENU-1182', '2026-12-11 19:00:11');

CREATE TABLE config_items (
  id INTEGER PRIMARY KEY,
  app_id VARCHAR(64) NOT NULL,
  namespace VARCHAR(32) NOT NULL,
  config_key VARCHAR(96) NOT NULL,
  config_value VARCHAR(128) NOT NULL,
  description VARCHAR(255),
  last_modified_by VARCHAR(32) NOT NULL,
  last_modified_at DATETIME NOT NULL
);

INSERT INTO config_items (id, app_id, namespace, config_key, config_value, description, last_modified_by, last_modified_at) VALUES
  (1, 'menu-service', 'application', 'menu.cache.ttl', '5', '菜单缓存（menu-redis）过期时间，单位：秒', 'liu.yang', '2026-12-11 19:00:11'),
  (2, 'menu-service', 'application', 'menu.cache.null-ttl', '60', '空菜单缓存过期时间，单位：秒', 'wang.lei', '2026-06-02 11:20:45'),
  (3, 'menu-service', 'application', 'menu.cache.warmup.interval-seconds', '300', '热门门店菜单预热周期，单位：秒', 'wang.lei', '2026-06-02 11:20:45'),
  (4, 'menu-service', 'application', 'menu.cache.warmup.top-n', '18000', '预热的热门门店数量', 'wang.lei', '2026-11-20 15:30:08'),
  (5, 'menu-service', 'application', 'menu.cache.key-version', 'v3', '缓存 key 版本，改动会使全部缓存失效', 'wang.lei', '2026-08-19 09:12:03'),
  (6, 'menu-service', 'application', 'menu.price-check.batch-size', '50', '价格校验批量查询条数', 'liu.yang', '2026-12-09 16:44:52'),
  (7, 'menu-service', 'datasource', 'spring.datasource.hikari.maximum-pool-size', '40', '每个 Pod 的 menu-db 连接池上限', 'wang.lei', '2026-09-05 14:00:12'),
  (8, 'menu-service', 'datasource', 'spring.datasource.hikari.connection-timeout', '3000', '获取连接超时，单位：毫秒', 'wang.lei', '2026-09-05 14:00:12'),
  (9, 'order-api', 'feign', 'feign.client.config.menu-service.read-timeout', '2000', '调用 menu-service 读超时，单位：毫秒', 'sun.hao', '2026-12-03 15:12:40'),
  (10, 'order-api', 'feign', 'feign.client.config.menu-service.connect-timeout', '500', '调用 menu-service 连接超时，单位：毫秒', 'sun.hao', '2026-07-21 10:41:29'),
  (11, 'order-api', 'sentinel', 'sentinel.degrade.menu-service.slow-ratio', '0.5', '慢调用比例熔断阈值（rt>1000ms 视为慢调用）', 'sun.hao', '2026-12-11 14:26:50'),
  (12, 'order-api', 'application', 'order.coupon.stack.enabled', 'true', '优惠券叠加开关', 'sun.hao', '2026-12-10 10:03:17'),
  (13, 'rider-dispatch', 'dispatch', 'dispatch.batch.window-ms', '2500', '派单批次窗口，单位：毫秒', 'chen.jie', '2026-12-11 18:47:36'),
  (14, 'rider-dispatch', 'dispatch', 'dispatch.zone.max-radius-km', '4.5', '派单半径，单位：公里', 'chen.jie', '2026-12-08 11:04:15'),
  (15, 'rider-dispatch', 'dispatch', 'dispatch.rider.location-stale-seconds', '60', '骑手位置超过该时间未上报则不参与派单，单位：秒', 'xu.ting', '2026-05-12 17:30:00');

CREATE TABLE deployments (
  id INTEGER PRIMARY KEY,
  change_id VARCHAR(16) NOT NULL,
  service VARCHAR(64) NOT NULL,
  version VARCHAR(16) NOT NULL,
  previous_version VARCHAR(16),
  deployed_by VARCHAR(32) NOT NULL,
  description VARCHAR(255),
  started_at DATETIME NOT NULL,
  finished_at DATETIME NOT NULL,
  status VARCHAR(16) NOT NULL
);

INSERT INTO deployments (id, change_id, service, version, previous_version, deployed_by, description, started_at, finished_at, status) VALUES
  (1, 'CHG-40871', 'rider-dispatch', '4.12.0', '4.11.3', 'deploy-bot', '派单算法：骑手顺路单合并', '2026-12-08 10:20:11', '2026-12-08 10:24:40', 'SUCCEEDED'),
  (2, 'CHG-40902', 'menu-service', '3.8.2', '3.8.1', 'deploy-bot', '价格校验批量查询；修复规格排序', '2026-12-09 16:30:05', '2026-12-09 16:36:52', 'SUCCEEDED'),
  (3, 'CHG-40915', 'order-api', '2.30.4', '2.30.3', 'deploy-bot', '修复取消订单退款状态同步', '2026-12-10 09:41:37', '2026-12-10 09:45:02', 'SUCCEEDED'),
  (4, 'CHG-40933', 'rider-dispatch', '4.12.1', '4.12.0', 'deploy-bot', '骑手位置上报日志降噪（未完成，见 DISP-771）', '2026-12-10 15:02:48', '2026-12-10 15:06:10', 'SUCCEEDED'),
  (5, 'CHG-40958', 'order-api', '2.31.0', '2.30.4', 'deploy-bot', '结算页优惠券叠加展示；订单状态查询接口增加缓存头', '2026-12-11 18:34:02', '2026-12-11 18:37:34', 'SUCCEEDED');

CREATE TABLE db_maintenance_jobs (
  id INTEGER PRIMARY KEY,
  job_id VARCHAR(16) NOT NULL,
  db_cluster VARCHAR(32) NOT NULL,
  schema_name VARCHAR(32) NOT NULL,
  table_name VARCHAR(64) NOT NULL,
  operation VARCHAR(255) NOT NULL,
  tool VARCHAR(16) NOT NULL,
  scheduled_at DATETIME NOT NULL,
  started_at DATETIME,
  finished_at DATETIME,
  status VARCHAR(16) NOT NULL,
  operator VARCHAR(32) NOT NULL,
  notes VARCHAR(255)
);

INSERT INTO db_maintenance_jobs (id, job_id, db_cluster, schema_name, table_name, operation, tool, scheduled_at, started_at, finished_at, status, operator, notes) VALUES
  (1, 'DBM-2291', 'order-db', 'orders', 'order_item', 'OPTIMIZE TABLE (rebuild, reclaim 38GB)', 'gh-ost', '2026-12-04 02:00:00', '2026-12-04 02:00:04', '2026-12-04 03:41:27', 'SUCCEEDED', 'dba.zhou', NULL),
  (2, 'DBM-2304', 'menu-db', 'menu', 'menu_item', 'ALTER TABLE menu_item DROP INDEX idx_shop_id, ADD INDEX idx_shop_status_cat (shop_id, status, category_id, sort_no)', 'gh-ost', '2026-12-11 02:00:00', '2026-12-11 02:00:03', '2026-12-11 02:46:51', 'SUCCEEDED', 'dba.zhou', '菜单列表查询覆盖排序，消除 filesort；cut-over 2026-12-11 02:46:49，锁等待 1.2s'),
  (3, 'DBM-2305', 'menu-db', 'menu', 'menu_sku', 'ANALYZE TABLE menu_sku', 'mysql', '2026-12-11 02:50:00', '2026-12-11 02:50:01', '2026-12-11 02:50:09', 'SUCCEEDED', 'dba.zhou', '统计信息刷新'),
  (4, 'DBM-2306', 'menu-db', 'menu', 'menu_item', 'EXPLAIN 抽检 top 20 查询（上线后验证）', 'mysql', '2026-12-11 10:00:00', '2026-12-11 10:02:11', '2026-12-11 10:09:40', 'SUCCEEDED', 'dba.zhou', '20/20 使用 idx_shop_status_cat，Rows_examined = Rows_sent；午高峰 menu-db p99 3.1ms（前一日 4.8ms）'),
  (5, 'DBM-2310', 'rider-db', 'dispatch', 'rider_location_log', 'DROP PARTITION p20261111', 'mysql', '2026-12-12 02:00:00', NULL, NULL, 'SCHEDULED', 'dba.zhou', '按月清理');

CREATE TABLE order_stats_5min (
  id INTEGER PRIMARY KEY,
  bucket_start DATETIME NOT NULL,
  city VARCHAR(16) NOT NULL,
  menu_requests INTEGER NOT NULL,
  menu_load_failures INTEGER NOT NULL,
  orders_submitted INTEGER NOT NULL,
  orders_failed INTEGER NOT NULL
);

INSERT INTO order_stats_5min (id, bucket_start, city, menu_requests, menu_load_failures, orders_submitted, orders_failed) VALUES
  (1, '2026-12-11 18:30:00', 'ALL', 110492, 204, 9191, 24),
  (2, '2026-12-11 18:35:00', 'ALL', 114706, 211, 9589, 28),
  (3, '2026-12-11 18:40:00', 'ALL', 118685, 184, 9856, 26),
  (4, '2026-12-11 18:45:00', 'ALL', 121685, 255, 10126, 28),
  (5, '2026-12-11 18:50:00', 'ALL', 124399, 156, 10270, 23),
  (6, '2026-12-11 18:55:00', 'ALL', 126332, 268, 10649, 29),
  (7, '2026-12-11 19:00:00', 'ALL', 130112, 317, 10758, 29),
  (8, '2026-12-11 19:05:00', 'ALL', 134818, 48157, 9158, 2870),
  (9, '2026-12-11 19:10:00', 'ALL', 136411, 61383, 8201, 3083),
  (10, '2026-12-11 19:15:00', 'ALL', 141017, 63455, 8478, 3263),
  (11, '2026-12-11 19:20:00', 'ALL', 142259, 64014, 8914, 3610),
  (12, '2026-12-11 19:25:00', 'ALL', 140157, 63069, 8497, 3264),
  (13, '2026-12-11 19:30:00', 'ALL', 140433, 63192, 8277, 3026),
  (14, '2026-12-11 19:35:00', 'ALL', 141317, 63590, 8829, 3540),
  (15, '2026-12-11 19:40:00', 'ALL', 141498, 63672, 8910, 3598),
  (16, '2026-12-11 19:45:00', 'ALL', 141914, 63859, 8998, 3724),
  (17, '2026-12-11 19:50:00', 'ALL', 140492, 63218, 8650, 3327),
  (18, '2026-12-11 19:55:00', 'ALL', 141355, 63607, 8864, 3572);

CREATE TABLE cs_tickets (
  id INTEGER PRIMARY KEY,
  ticket_no VARCHAR(20) NOT NULL,
  created_at DATETIME NOT NULL,
  channel VARCHAR(16) NOT NULL,
  city VARCHAR(16) NOT NULL,
  category VARCHAR(32) NOT NULL,
  shop_id INTEGER,
  content VARCHAR(255) NOT NULL,
  status VARCHAR(16) NOT NULL
);

INSERT INTO cs_tickets (id, ticket_no, created_at, channel, city, category, shop_id, content, status) VALUES
  (1, 'CS2026121138008', '2026-12-11 18:32:27', '小程序', '上海', '配送问题', NULL, '骑手联系不上', '已解决'),
  (2, 'CS2026121138015', '2026-12-11 18:37:53', 'app在线客服', '北京', '售后退款', NULL, '餐品洒了，申请部分退款', '已解决'),
  (3, 'CS2026121138021', '2026-12-11 18:42:10', 'app在线客服', '深圳', '配送问题', NULL, '骑手联系不上', '已解决'),
  (4, 'CS2026121138034', '2026-12-11 18:45:38', 'app在线客服', '北京', '售后退款', NULL, '餐品洒了，申请部分退款', '已解决'),
  (5, 'CS2026121138041', '2026-12-11 18:50:20', '电话', '苏州', '配送问题', NULL, '骑手一直不动，定位好几分钟没更新', '已解决'),
  (6, 'CS2026121138044', '2026-12-11 18:55:07', 'app在线客服', '上海', '优惠券', NULL, '优惠券不能叠加使用吗？结算页显示两张券', '已解决'),
  (7, 'CS2026121138052', '2026-12-11 19:01:34', 'app在线客服', '南京', '配送问题', NULL, '骑手联系不上', '已解决'),
  (8, 'CS2026121138060', '2026-12-11 19:06:12', '小程序', '上海', '下单失败', 2269721, '下单一直失败，付款按钮点了没反应', '已解决'),
  (9, 'CS2026121138064', '2026-12-11 19:07:06', 'app在线客服', '南京', '菜单加载', 2202324, '商家页面打不开，显示菜单加载失败', '已解决'),
  (10, 'CS2026121138074', '2026-12-11 19:09:10', '电话', '苏州', '菜单加载', NULL, '商家页面打不开，显示菜单加载失败', '处理中'),
  (11, 'CS2026121138078', '2026-12-11 19:11:03', '电话', '深圳', '下单失败', NULL, '提交订单提示商品信息加载失败，请重试', '已解决'),
  (12, 'CS2026121138089', '2026-12-11 19:13:08', '小程序', '上海', '菜单加载', NULL, '菜单加载失败，请稍后重试，换了网络也不行', '已解决'),
  (13, 'CS2026121138094', '2026-12-11 19:13:48', 'app在线客服', '北京', '下单失败', NULL, '提交订单提示商品信息加载失败，请重试', '已解决'),
  (14, 'CS2026121138101', '2026-12-11 19:15:14', 'app在线客服', '南京', '菜单加载', 2252694, '小程序里店铺页空白，刷新几次偶尔能出来', '已解决'),
  (15, 'CS2026121138110', '2026-12-11 19:15:59', '电话', '上海', '下单失败', 2211583, '提交订单提示商品信息加载失败，请重试', '处理中'),
  (16, 'CS2026121138116', '2026-12-11 19:17:45', 'app在线客服', '深圳', '菜单加载', 2243482, '点进店铺一直转圈，提示菜单加载失败', '已解决'),
  (17, 'CS2026121138124', '2026-12-11 19:19:55', '电话', '深圳', '菜单加载', 2205197, '点进店铺一直转圈，提示菜单加载失败', '处理中'),
  (18, 'CS2026121138131', '2026-12-11 19:20:34', 'app在线客服', '上海', '菜单加载', 2247072, '商家页面打不开，显示菜单加载失败', '处理中'),
  (19, 'CS2026121138135', '2026-12-11 19:22:24', 'app在线客服', '上海', '菜单加载', 2285127, '所有店铺都打不开菜单', '处理中'),
  (20, 'CS2026121138141', '2026-12-11 19:23:44', 'app在线客服', '南京', '菜单加载', 2298288, '点进店铺一直转圈，提示菜单加载失败', '处理中'),
  (21, 'CS2026121138149', '2026-12-11 19:25:37', 'app在线客服', '北京', '下单失败', 2242451, '提交订单提示商品信息加载失败，请重试', '处理中'),
  (22, 'CS2026121138157', '2026-12-11 19:27:45', 'app在线客服', '南京', '下单失败', NULL, '提交订单提示商品信息加载失败，请重试', '处理中'),
  (23, 'CS2026121138161', '2026-12-11 19:29:08', 'app在线客服', '南京', '菜单加载', 2244494, '小程序里店铺页空白，刷新几次偶尔能出来', '处理中'),
  (24, 'CS2026121138170', '2026-12-11 19:30:57', 'app在线客服', '南京', '下单失败', 2203020, '提交订单提示商品信息加载失败，请重试', '处理中'),
  (25, 'CS2026121138181', '2026-12-11 19:31:43', 'app在线客服', '杭州', '菜单加载', 2269168, '商家页面打不开，显示菜单加载失败', '处理中');

INSERT INTO cs_tickets (id, ticket_no, created_at, channel, city, category, shop_id, content, status) VALUES
  (26, 'CS2026121138183', '2026-12-11 19:32:15', '小程序', '苏州', '下单失败', NULL, '提交订单提示商品信息加载失败，请重试', '处理中'),
  (27, 'CS2026121138195', '2026-12-11 19:32:55', 'app在线客服', '上海', '菜单加载', 2291707, '点进店铺一直转圈，提示菜单加载失败', '处理中'),
  (28, 'CS2026121138200', '2026-12-11 19:33:56', 'app在线客服', '杭州', '菜单加载', NULL, '菜单加载失败，请稍后重试，换了网络也不行', '处理中'),
  (29, 'CS2026121138204', '2026-12-11 19:35:47', 'app在线客服', '北京', '配送问题', NULL, '骑手定位不更新', '处理中'),
  (30, 'CS2026121138213', '2026-12-11 19:37:17', 'app在线客服', '北京', '菜单加载', NULL, '所有店铺都打不开菜单', '处理中'),
  (31, 'CS2026121138218', '2026-12-11 19:39:36', 'app在线客服', '上海', '菜单加载', NULL, '菜单加载失败，请稍后重试，换了网络也不行', '处理中'),
  (32, 'CS2026121138229', '2026-12-11 19:40:33', 'app在线客服', '南京', '菜单加载', 2202833, '点进店铺一直转圈，提示菜单加载失败', '处理中'),
  (33, 'CS2026121138231', '2026-12-11 19:41:52', 'app在线客服', '北京', '菜单加载', NULL, '点进店铺一直转圈，提示菜单加载失败', '处理中'),
  (34, 'CS2026121138243', '2026-12-11 19:43:10', '电话', '杭州', '菜单加载', 2210225, '所有店铺都打不开菜单', '处理中'),
  (35, 'CS2026121138249', '2026-12-11 19:45:14', '小程序', '苏州', '菜单加载', 2296529, '商家页面打不开，显示菜单加载失败', '处理中'),
  (36, 'CS2026121138255', '2026-12-11 19:46:24', '电话', '深圳', '菜单加载', 2280849, '所有店铺都打不开菜单', '处理中'),
  (37, 'CS2026121138265', '2026-12-11 19:48:17', 'app在线客服', '上海', '菜单加载', 2204704, '菜单加载失败，请稍后重试，换了网络也不行', '处理中'),
  (38, 'CS2026121138272', '2026-12-11 19:50:06', 'app在线客服', '苏州', '菜单加载', 2275816, '小程序里店铺页空白，刷新几次偶尔能出来', '处理中'),
  (39, 'CS2026121138274', '2026-12-11 19:51:54', '小程序', '上海', '下单失败', 2200493, '提交订单提示商品信息加载失败，请重试', '处理中'),
  (40, 'CS2026121138282', '2026-12-11 19:52:33', 'app在线客服', '上海', '菜单加载', 2214676, '小程序里店铺页空白，刷新几次偶尔能出来', '处理中'),
  (41, 'CS2026121138290', '2026-12-11 19:53:23', 'app在线客服', '上海', '下单失败', 2297184, '下单一直失败，付款按钮点了没反应', '处理中'),
  (42, 'CS2026121138298', '2026-12-11 19:53:53', 'app在线客服', '北京', '菜单加载', NULL, '点进店铺一直转圈，提示菜单加载失败', '处理中'),
  (43, 'CS2026121138305', '2026-12-11 19:54:27', '电话', '苏州', '下单失败', 2211427, '下单一直失败，付款按钮点了没反应', '处理中'),
  (44, 'CS2026121138309', '2026-12-11 19:56:34', 'app在线客服', '上海', '菜单加载', NULL, '小程序里店铺页空白，刷新几次偶尔能出来', '处理中'),
  (45, 'CS2026121138321', '2026-12-11 19:58:30', 'app在线客服', '杭州', '菜单加载', 2283410, '所有店铺都打不开菜单', '处理中'),
  (46, 'CS2026121138326', '2026-12-11 19:59:21', '电话', '北京', '配送问题', NULL, '骑手定位不更新', '处理中');
