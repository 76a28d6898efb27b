#!/usr/bin/env bash
# Installs the Debian packages the test suite needs when they are missing: Chromium for browser tests,
# PostgreSQL for store tests, redis-server and HAProxy for the cluster tests (and `make cluster`), Node.js and npm (make installs axe-core for the accessibility tests), and fonts with Persian (DejaVu) and Japanese (IPA) glyphs for the screenshots. Uses apt-get as root, or through sudo when available.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v haproxy >/dev/null 2>&1 || [[ -x /usr/sbin/haproxy ]] || need+=(haproxy)
for font in fonts-dejavu-core fonts-ipafont-gothic; do
  dpkg -s "$font" >/dev/null 2>&1 || need+=("$font")
done
((${#need[@]})) || exit 0
run() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }
echo "Installing Debian packages: ${need[*]}"
run apt-get update -qq
DEBIAN_FRONTEND=noninteractive run apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
