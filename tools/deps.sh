#!/usr/bin/env bash
# tools/deps.sh - the Debian packages prism needs, installed only when missing.
#
#   tools/deps.sh ensure    install what is missing (quiet when nothing is)
#   tools/deps.sh install   same, saying what it checked
#   tools/deps.sh list      print the package list
#
# Owns the one list of build and test dependencies; .ci/run and the
# Makefile's deps/test/demo targets all come through here.
set -euo pipefail

PACKAGES=(
	make gcc clang clang-format libclang-rt-14-dev pkg-config
	flex bison libyaml-dev libjansson-dev libcmocka-dev pandoc man-db
	libibverbs-dev ibverbs-providers rdma-core ibverbs-utils
	valgrind iproute2 python3 xz-utils
	dpkg-dev patch autoconf automake libevent-dev libxxhash-dev
	memcached libmemcached-dev libmemcached-tools
)

missing() {
	local p
	for p in "${PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			echo "$p"
	done
}

case "${1:-ensure}" in
list)
	printf '%s\n' "${PACKAGES[@]}"
	exit 0
	;;
ensure | install) ;;
*)
	echo "usage: $0 ensure|install|list" >&2
	exit 2
	;;
esac

mapfile -t need < <(missing)
if [ "${#need[@]}" -eq 0 ]; then
	[ "${1:-ensure}" = install ] && echo "deps: all ${#PACKAGES[@]} packages installed"
	exit 0
fi

echo "deps: installing ${need[*]}"
SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "deps: need root or sudo to install ${need[*]}" >&2; exit 1; }
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
