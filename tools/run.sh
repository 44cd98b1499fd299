#!/bin/sh
# Starts fishscale: the FastCGI workers (via spawn-fcgi) on a unix socket and
# nginx in front on LISTEN:PORT, from a config rendered into DATA/run.
#
#   tools/run.sh [--port PORT] [--data DIR] [--detach]
#
# In the foreground (the default, `make run`) it prints the URL and waits;
# Ctrl-C or SIGTERM stops nginx and every FastCGI process. With --detach it
# returns once the site answers (the tests use that), and tools/stop.sh
# stops it.
set -eu
# nothing fishscale writes is for "others" (see cgi/app/app.h)
umask 027
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PORT=""
DATA=""
DETACH=0
while [ $# -gt 0 ]; do
	case "$1" in
	--port) PORT=$2; shift 2 ;;
	--data) DATA=$2; shift 2 ;;
	--detach) DETACH=1; shift ;;
	*) echo "usage: tools/run.sh [--port PORT] [--data DIR] [--detach]" >&2; exit 2 ;;
	esac
done
export FISHSCALE_ROOT="$ROOT"
[ -n "$PORT" ] && export FISHSCALE_PORT="$PORT"
if [ -n "$DATA" ]; then
	mkdir -p "$DATA"
	DATA=$(cd "$DATA" && pwd)
	export FISHSCALE_DATA_DIR="$DATA"
fi
FS="$ROOT/build/fishscale"
DATA=$("$FS" config get data_path)
PORT=$("$FS" config get port)
LISTEN=$("$FS" config get listen_address)
BASE=$("$FS" config get base_path)
UPLOAD=$("$FS" config get upload_max_mb)
RUN="$DATA/run"
mkdir -p "$DATA" "$RUN/tmp"
chmod 700 "$RUN"

if [ -f "$RUN/nginx.pid" ] && kill -0 "$(cat "$RUN/nginx.pid")" 2>/dev/null; then
	echo "fishscale is already running from $DATA (make stop first)" >&2
	exit 1
fi
case "$LISTEN" in
*[!0-9a-fA-F.:]*) echo "listen_address must be an IP address" >&2; exit 1 ;;
esac
case "$DATA$ROOT" in
*[\|\&\;\ \']*) echo "the data and source paths may not contain | & ; ' or spaces" >&2; exit 1 ;;
esac

"$FS" init

USER_LINE=""
[ "$(id -u)" -eq 0 ] && USER_LINE="user root root;"
BASE_REDIRECT=""
FALLBACK=""
if [ "$BASE" != "/" ]; then
	BASE_REDIRECT="location = ${BASE%/} { return 301 \$scheme://\$http_host$BASE; }"
	FALLBACK="location / { return 404; }"
fi
case "$LISTEN" in
*:*) LISTEN_CONF="[$LISTEN]" ;;
*) LISTEN_CONF="$LISTEN" ;;
esac
# Single sign-on: nginx passes the identity header on only from the trusted
# proxies; from anyone else it is replaced by an empty value, so a client
# cannot name itself whatever it sends.
SSO=$("$FS" config get sso_header)
SSO_HTTP=""
SSO_PARAM=""
if [ -n "$SSO" ]; then
	case "$SSO" in
	*[!A-Za-z0-9-]*) echo "sso_header must be a header name (letters, digits, -)" >&2; exit 1 ;;
	esac
	PROXIES=""
	for p in $("$FS" config get trusted_proxies | tr ',' ' '); do
		case "$p" in
		*[!0-9a-fA-F.:/]*) echo "trusted_proxies must be IP addresses" >&2; exit 1 ;;
		esac
		PROXIES="$PROXIES $p 1;"
	done
	VAR=$(echo "$SSO" | tr 'A-Z-' 'a-z_')
	PARAM=$(echo "$SSO" | tr 'a-z-' 'A-Z_')
	SSO_HTTP="geo \$fs_sso_trusted { default 0;$PROXIES } map \$fs_sso_trusted \$fs_sso_user { default \"\"; 1 \$http_$VAR; }"
	SSO_PARAM="fastcgi_param HTTP_$PARAM \$fs_sso_user;"
fi
SOCK="$RUN/fcgi.sock"
sed -e "s|@USER_LINE@|$USER_LINE|" -e "s|@RUN@|$RUN|g" -e "s|@ROOT@|$ROOT|g" -e "s|@DATA@|$DATA|g" \
	-e "s|@LISTEN@|$LISTEN_CONF|g" -e "s|@PORT@|$PORT|g" -e "s|@BASE@|$BASE|g" -e "s|@SOCK@|$SOCK|g" \
	-e "s|@UPLOAD_MB@|$UPLOAD|g" -e "s|@BASE_REDIRECT@|$BASE_REDIRECT|" -e "s|@FALLBACK@|$FALLBACK|" \
	-e "s|@SSO_HTTP@|$SSO_HTTP|" -e "s|@SSO_PARAM@|$SSO_PARAM|" \
	"$ROOT/conf/nginx.conf.in" > "$RUN/nginx.conf"
cp "$ROOT/conf/security-headers.conf" "$RUN/security-headers.conf"

rm -f "$SOCK"
spawn-fcgi -s "$SOCK" -M 0600 -P "$RUN/fcgi.pid" -- "$ROOT/build/fishscale.fcgi" --root "$ROOT" >/dev/null
URL="http://$LISTEN_CONF:$PORT$BASE"

wait_ready() {
	i=0
	while [ $i -lt 200 ]; do
		if curl -fsS -o /dev/null "http://$LISTEN_CONF:$PORT${BASE}api/health" 2>/dev/null; then
			return 0
		fi
		i=$((i + 1))
		sleep 0.05
	done
	echo "fishscale did not answer on $URL; see $RUN/nginx-error.log" >&2
	return 1
}

if [ "$DETACH" -eq 1 ]; then
	nginx -q -c "$RUN/nginx.conf" -p "$RUN/" -g "daemon on;"
	wait_ready
	echo "fishscale is running at $URL"
	exit 0
fi

stop() {
	trap - INT TERM
	echo
	echo "stopping fishscale"
	sh "$ROOT/tools/stop.sh" --data "$DATA"
	exit 0
}
trap stop INT TERM
nginx -q -c "$RUN/nginx.conf" -p "$RUN/" -g "daemon off;" &
NGINX=$!
wait_ready || { stop; exit 1; }
echo
echo "fishscale is running at $URL"
if [ -f "$DATA/admin-password.txt" ]; then
	echo "first login: $(sed -n 's/^login: //p' "$DATA/admin-password.txt") / $(sed -n 's/^password: //p' "$DATA/admin-password.txt")"
	echo "(from $DATA/admin-password.txt; delete that file once you have changed it)"
else
	echo "log in with an existing account (fishscale user list; fishscale user passwd admin)"
fi
echo "Ctrl-C stops it."
wait $NGINX || true
stop
