#!/usr/bin/env bash
# examples/memcached/build.sh - Debian's memcached with the prism get offload.
#
#   build.sh [BUILD_DIR]      (default build/memcached; run from the repository root)
#
# 1. Fetches Debian's memcached source with `apt-get source`, through a
#    private sources list (deb-src entries for the running release), so that
#    /etc/apt is never touched; the .dsc and tarballs are cached in
#    BUILD_DIR/debian and fetched only once.
# 2. Extracts it (Debian's own patches applied by dpkg-source), copies in the
#    offload's own files (examples/memcached/src/) and applies the patch
#    series (examples/memcached/patches/series), then regenerates configure.
# 3. Configures with --enable-prism against the in-tree libprism through an
#    uninstalled prism.pc, and builds memcached and memcached-debug.
#
# A second run redoes only what changed: the tree is re-extracted when the
# patches or src files are newer than it.  Prints the memcached binary path.
set -euo pipefail

root=$(pwd)
out=${1:-build/memcached}
O=${O:-build}
here=examples/memcached
mkdir -p "$out/debian"
out=$(cd "$out" && pwd)

fetch() {
	local cache=$out/debian apt lists
	if ls "$cache"/memcached_*.dsc >/dev/null 2>&1; then
		return 0
	fi
	. /etc/os-release
	lists=$cache/apt
	mkdir -p "$lists/lists/partial" "$lists/cache/archives/partial"
	{
		echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian ${VERSION_CODENAME} main"
		echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security ${VERSION_CODENAME}-security main"
	} >"$lists/sources.list"
	apt=(apt-get -q -o "Dir::Etc::SourceList=$lists/sources.list"
		-o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$lists/lists"
		-o "Dir::Cache=$lists/cache" -o APT::Sandbox::User=root)
	echo "memcached: fetching Debian's memcached source"
	local try
	for try in 1 2 3; do
		if "${apt[@]}" update >"$lists/update.log" 2>&1 &&
			(cd "$cache" && "${apt[@]}" source --download-only memcached >"$lists/source.log" 2>&1); then
			return 0
		fi
		echo "memcached: apt-get source failed (try $try), see $lists/*.log" >&2
		sleep 2
	done
	exit 1
}

extract() {
	local dsc src stamp=$out/.patched
	dsc=$(ls "$out"/debian/memcached_*.dsc | tail -1)
	if [ -f "$stamp" ] && [ -z "$(find "$here/patches" "$here/src" -newer "$stamp" -print -quit)" ]; then
		return 0
	fi
	rm -rf "$out/src" "$stamp"
	dpkg-source --no-check -x "$dsc" "$out/src" >"$out/extract.log" 2>&1
	cp "$here"/src/prism_mc.c "$here"/src/prism_mc.h "$out/src/"
	while read -r p; do
		case "$p" in '' | '#'*) continue ;; esac
		patch -d "$out/src" -p1 --no-backup-if-mismatch -s <"$here/patches/$p"
	done <"$here/patches/series"
	(cd "$out/src" && autoreconf -fi >"$out/autoreconf.log" 2>&1)
	rm -f "$out/.configured"
	touch "$stamp"
}

configure() {
	local pc=$out/pkgconfig
	mkdir -p "$pc"
	# The in-tree libprism, as `pkg-config prism` describes an installed one;
	# linked statically, so its private libraries go on the Libs line and
	# the packages it requires privately become plain requirements.
	local privs
	privs=$(sed -n 's/^Libs.private: //p' runtime/prism.pc.in)
	sed -e "s|^prefix=.*|prefix=$root|" -e "s|^libdir=.*|libdir=$root/$O|" \
		-e "s|^includedir=.*|includedir=$root/runtime/include|" -e "s|@VERSION@|0.1.0|" \
		-e "s|^Libs:.*|Libs: \${libdir}/libprism.a $privs|" \
		-e "s|^Requires.private:|Requires:|" \
		runtime/prism.pc.in >"$pc/prism.pc"
	# a configure made against other flags is redone
	if [ -f "$out/.configured" ] && ! cmp -s "$pc/prism.pc" "$out/.configured"; then
		rm -f "$out/.configured"
	fi
	if [ -f "$out/.configured" ]; then
		return 0
	fi
	(cd "$out/src" && PKG_CONFIG_PATH=$pc ./configure --enable-prism \
		CPPFLAGS="-DPRISM_MC_CHAIN='\"$out/memcached_get.chain\"'" >"$out/configure.log" 2>&1) ||
		{ tail -20 "$out/configure.log"; exit 1; }
	cp "$pc/prism.pc" "$out/.configured" # the flags it was configured with
}

fetch
extract
configure
"$O/prismc" compile "$here/memcached_get.prism" --entry get -o "$out/memcached_get.chain"
# The index size is the chain's `index` region: one chain per -o prism=index_power=N.
for p in 16 18 22 24; do
	sed "s/^const INDEX_SLOTS = .*/const INDEX_SLOTS = $((1 << p));/" "$here/memcached_get.prism" \
		>"$out/memcached_get-$p.prism"
	"$O/prismc" compile "$out/memcached_get-$p.prism" --entry get -o "$out/memcached_get-$p.chain"
done
rm -f "$out/src/memcached" "$out/src/memcached-debug" # relink against the current libprism
make -C "$out/src" -j2 memcached memcached-debug timedrun sizes testapp >"$out/make.log" 2>&1 || { tail -30 "$out/make.log"; exit 1; }
echo "$out/src/memcached"
