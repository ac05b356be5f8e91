#!/usr/bin/env bash
# Make sure the Debian packages the project needs are installed: installs them when run as root,
# otherwise stops with the exact apt-get line. Usage: scripts/system-deps.sh build|browser|services|i18n
set -euo pipefail

case "${1:-build}" in
  # venv and headers for a Debian python3, mysqlclient's build dependencies
  build) packages=(python3-venv python3-dev default-libmysqlclient-dev build-essential pkg-config) ;;
  # CI's MariaDB and Redis, Prometheus 2.42 + promtool and Alertmanager 0.25 + amtool (tests start their own
  # servers on loopback)
  services) packages=(mariadb-server mariadb-client redis-server prometheus prometheus-alertmanager) ;;
  browser) packages=(chromium chromium-driver fonts-wqy-zenhei) ;;   # the browser tests; CJK glyphs for zh pages
  i18n) packages=(gettext) ;;                            # `make messages`: xgettext, msgmerge, msgfmt
  *) echo "usage: $0 build|browser|services|i18n" >&2; exit 2 ;;
esac

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

line="apt-get install -y ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "missing system packages; run as root: $line" >&2
  exit 1
fi
echo "installing system packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
