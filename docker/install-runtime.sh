#!/bin/sh
# System setup of the runtime image, run by docker/Dockerfile as root. Kept out of the Dockerfile so
# it can be tested without a Docker engine (test/integration/docker.test.ts runs it with ROOT set to
# a scratch directory and stand-ins for apt-get, groupadd, useradd and chown on PATH).
#
#   ROOT      filesystem root to set up (default: /)
#   APP_USER  the unprivileged user mcp-offload runs as (default: mcp)
#   APP_UID   its uid and gid (default: 10001)
set -eu

ROOT="${ROOT:-}"
APP_USER="${APP_USER:-mcp}"
APP_UID="${APP_UID:-10001}"
# chromium: the ABP browser backend drives Debian's build (puppeteer-core downloads no browser).
# fonts-liberation: pages and PDFs render with real metrics. tini: PID 1 that forwards SIGTERM and
# reaps chromium's helper processes. ca-certificates: https upstreams.
PACKAGES="chromium fonts-liberation ca-certificates tini"

export DEBIAN_FRONTEND=noninteractive
apt-get update
# shellcheck disable=SC2086 # the package list is meant to split into words
apt-get install -y --no-install-recommends $PACKAGES
rm -rf "$ROOT/var/lib/apt/lists/"*

groupadd --system --gid "$APP_UID" "$APP_USER"
useradd --system --uid "$APP_UID" --gid "$APP_UID" --home-dir "/home/$APP_USER" --create-home \
  --shell /usr/sbin/nologin "$APP_USER"

# /artifacts is the volume; 0700 because artifacts are other people's tool results.
mkdir -p "$ROOT/artifacts" "$ROOT/config" "$ROOT/usr/local/bin"
chown "$APP_USER:$APP_USER" "$ROOT/artifacts"
chmod 0700 "$ROOT/artifacts"

# The mcp-offload command; /app/dist is copied in by a later Dockerfile step.
ln -sf /app/dist/cli.js "$ROOT/usr/local/bin/mcp-offload"
echo "install-runtime: ok ($PACKAGES; user $APP_USER:$APP_UID)"
