#!/usr/bin/env bash
# tools/check-prm.sh BUILD_DIR - `make check-prm`: compare the mlx5 backend's
# PRM field table with drivers/common/mlx5/mlx5_prm.h of Debian's dpdk
# source package.
#
# The source package is fetched once with apt-get's own client into
# BUILD_DIR/prm/ (a private deb-src list and package index there: nothing on
# the system changes) and only that header is kept.  Without network access
# and without a cached header it fails and says so.
set -euo pipefail

O=${1:-build}
DIR=$O/prm
HDR=$DIR/mlx5_prm.h
SUITE=${PRM_DEBIAN_SUITE:-bookworm}
MIRROR=${PRM_DEBIAN_MIRROR:-http://deb.debian.org/debian}

fetch() {
	mkdir -p "$DIR/lists/partial" "$DIR/src"
	local abs
	abs=$(cd "$DIR" && pwd)
	local apt=(-o "Dir::Etc::SourceList=$abs/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$abs/lists" -o Debug::NoLocking=1
		-o APT::Sandbox::User=root -q)
	echo "deb-src $MIRROR $SUITE main" >"$DIR/sources.list"
	echo "check-prm: fetching Debian's dpdk source package ($SUITE) into $DIR"
	if ! apt-get "${apt[@]}" update >"$DIR/apt.log" 2>&1 ||
		! (cd "$DIR/src" && apt-get "${apt[@]}" source --download-only dpdk) >>"$DIR/apt.log" 2>&1; then
		tail -5 "$DIR/apt.log" >&2
		echo "check-prm: FAILED: could not download Debian's dpdk source package (no network?);" \
			"put drivers/common/mlx5/mlx5_prm.h at $HDR to check offline" >&2
		exit 1
	fi
	local tarball
	tarball=$(ls "$DIR"/src/dpdk_*.orig.tar.* | head -1)
	tar -xf "$tarball" -C "$DIR/src" --wildcards '*/drivers/common/mlx5/mlx5_prm.h'
	cp "$(find "$DIR/src" -path '*/drivers/common/mlx5/mlx5_prm.h' | head -1)" "$HDR"
	basename "$tarball" >"$DIR/source"
	rm -rf "$DIR/src" "$DIR/lists"
}

[ -s "$HDR" ] || fetch
echo "check-prm: against $(cat "$DIR/source" 2>/dev/null || echo "$HDR")"
"$O/prism-prm-table" >"$DIR/table.txt"
python3 tools/check-prm.py "$HDR" "$DIR/table.txt"
