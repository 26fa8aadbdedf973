#!/bin/sh
# Installs the Debian packages named as arguments, but only those missing,
# so `make run` / `make check` work on a fresh Debian machine as root and
# cost nothing when everything is already there.
missing=""
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "tracepipe: installing missing Debian packages:$missing"
if [ "$(id -u)" != 0 ]; then
    echo "tracepipe: not root; install them with: sudo apt-get install$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing
