#!/bin/sh
# Installs, with apt-get, the Debian packages fishscale needs that dpkg does not
# already find; then the npm packages for the browser tests (playwright-core, axe-core). Works as root or
# through sudo. Safe to run again: it does nothing when everything is there.
set -e
PKGS="build-essential pkg-config libfcgi-dev libcjson-dev libcurl4-openssl-dev
libsqlite3-dev libpng-dev libtiff-dev libdeflate-dev libjpeg62-turbo-dev libcrypt-dev
libcmocka-dev nginx spawn-fcgi sqlite3 curl wrk python3 clang
libclang-rt-14-dev chromium nodejs npm
libtesseract-dev tesseract-ocr-eng libfreetype-dev fonts-dejavu-core
fonts-liberation"
missing=""
for p in $PKGS; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
# Node may come from elsewhere than Debian (nodesource); accept any working one.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
	missing=$(echo "$missing" | tr ' ' '\n' | grep -v -x -e nodejs -e npm | tr '\n' ' ')
fi
missing=$(echo $missing)
if [ -n "$missing" ]; then
	echo "deps: installing $missing"
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
here=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$here/tests/browser/node_modules/playwright-core/package.json" ] ||
   [ ! -f "$here/tests/browser/node_modules/@modelcontextprotocol/sdk/package.json" ] ||
   [ ! -f "$here/tests/browser/node_modules/axe-core/axe.min.js" ]; then
	echo "deps: installing playwright-core and axe-core (browser tests) and @modelcontextprotocol/sdk (MCP client test)"
	(cd "$here/tests/browser" && npm install --no-audit --no-fund --silent)
fi
