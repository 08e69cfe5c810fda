#!/bin/sh
# Writes nginx's real_ip lines (real_ip.conf, which deploy/nginx.conf includes) from
# TRUSTED_PROXY_COUNT, the number of proxies in front of gunicorn that the app reads too
# (config/settings.py, config.middleware.client_address). Each proxy appends the address it was
# reached from to X-Forwarded-For; nginx is the last of them, so TRUSTED_PROXY_COUNT - 1 stand in
# front of it. nginx then keys its limits ($binary_remote_addr) on the address the app finds.
#
# docker-compose.yml runs it when the nginx container starts (/docker-entrypoint.d/); a failure
# stops the container: a proxy that limits everybody as one client is worse than none.
# Usage: TRUSTED_PROXY_COUNT=2 deploy/nginx-real-ip.sh [OUTPUT, default /etc/nginx/real_ip.conf]
set -eu
out=${1:-/etc/nginx/real_ip.conf}
count=${TRUSTED_PROXY_COUNT:-}

case "$count" in
1)
    cat > "$out" <<'EOF'
# TRUSTED_PROXY_COUNT=1: nginx faces the clients; $remote_addr is the client's, no header is read.
EOF
    ;;
2)
    cat > "$out" <<'EOF'
# TRUSTED_PROXY_COUNT=2: one proxy (the TLS terminator) in front of nginx, and the only way to it.
# The last X-Forwarded-For entry is the one it wrote, the client's address: $remote_addr becomes
# it. Entries further left are whatever the client sent; they are never read.
set_real_ip_from 0.0.0.0/0;
set_real_ip_from ::/0;
real_ip_header X-Forwarded-For;
real_ip_recursive off;
EOF
    ;;
*)
    echo "nginx-real-ip.sh: TRUSTED_PROXY_COUNT='$count': expected 1 (nginx faces the clients) or 2 (one" \
        "TLS terminator in front of nginx). 0 means no proxy, so no nginx either. nginx's real_ip module" \
        "trusts proxies by address, not by number: with more than one proxy in front of nginx, write" \
        "set_real_ip_from lines with their addresses and real_ip_recursive on in $out yourself." >&2
    exit 1
    ;;
esac
echo "nginx-real-ip.sh: $out written for TRUSTED_PROXY_COUNT=$count"
