# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Host-side helpers shared by tests/vm/run-tests, tests/vm/bench and
# tests/vm/demo: build the guest initramfs and boot it under QEMU.
#
# The initramfs is two concatenated gzip'd cpio archives (the kernel
# unpacks them in order, later files win):
#   base    busybox, mdadm, fio + libraries, the distro modules we need.
#           Cached in .cache/initramfs/ keyed by a hash of its inputs.
#   overlay /init, the guest harness, tests, bench jobs, our .ko files
#           (and seekdisk.ko for the seek benches) and the run
#           configuration.  Rebuilt on every run (small, fast).

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=$SRC/.cache
VMDIR=$SRC/tests/vm
RESULTS=$SRC/results
# shellcheck source=../../scripts/kver.sh
. "$SRC/scripts/kver.sh"

die() { echo "${0##*/}: $*" >&2; exit 2; }

# ensure_setup: KVER's kernel (scripts/kver.sh; 6.1 by default) fetched
# and unpacked, its release in KABI, the image tree in KTREE, where our
# modules for it are built in KO_DIR, and the accelerator chosen.
ensure_setup() {
	kver_init "$SRC" || exit 2
	export KVER
	KABI=$(kver_kabi)
	if [ -z "$KABI" ] || [ ! -e "$CACHE/kernel-$KABI/.done" ] ||
	   ! command -v qemu-system-x86_64 >/dev/null; then
		"$VMDIR/setup.sh"
		KABI=$(kver_kabi)
	fi
	KTREE=$CACHE/kernel-$KABI
	KO_DIR=$(kver_ko_dir "$SRC" "$KABI")
	# VM_KERNEL_DIR: boot another kernel tree of the same layout instead
	# (boot/vmlinuz-REL, lib/modules/REL; scripts/debug-kernel.sh makes one)
	if [ -n "${VM_KERNEL_DIR:-}" ]; then
		local dep=("$VM_KERNEL_DIR"/lib/modules/*/modules.dep)
		[ -e "${dep[0]}" ] || die "VM_KERNEL_DIR=$VM_KERNEL_DIR has no lib/modules/REL/modules.dep"
		KTREE=$VM_KERNEL_DIR KABI=$(basename "$(dirname "${dep[0]}")")
	fi
	VMLINUZ=$KTREE/boot/vmlinuz-$KABI
	[ -e "$VMLINUZ" ] || die "no kernel image at $VMLINUZ (run tests/vm/setup.sh)"
	mkdir -p "$CACHE/initramfs" "$RESULTS"
	choose_accel
}

# The modules this stack builds (Kbuild's obj-m), md-mod first.
FORK_MODULES="md-mod linear raid0 raid1 raid10 raid456"

# Build our modules for KVER's kernel (in KO_DIR) unless NO_BUILD=1
# (kbuild is incremental: cheap no-op).
# FORK_KO_DIR: take prebuilt .ko files from there instead (no build).
build_modules() {
	if [ "${NO_BUILD:-0}" != 1 ] && [ -z "${FORK_KO_DIR:-}" ]; then
		make -s -C "$SRC" modules >&2 || die "module build failed"
	fi
	local m
	for m in $FORK_MODULES; do
		[ -e "${FORK_KO_DIR:-$KO_DIR}/$m.ko" ] || die "$m.ko missing in ${FORK_KO_DIR:-$KO_DIR}"
	done
	# a module built for another kernel would not load in the guest
	if [ -z "${VM_KERNEL_DIR:-}" ] &&
	   [ "$(modinfo -F vermagic "${FORK_KO_DIR:-$KO_DIR}/md-mod.ko" | cut -d' ' -f1)" != "$KABI" ]; then
		die "md-mod.ko in ${FORK_KO_DIR:-$KO_DIR} is not built for $KABI (KVER=$KVER): $(modinfo -F vermagic "${FORK_KO_DIR:-$KO_DIR}/md-mod.ko")"
	fi
}

# build_seekdisk: the seek benches' member disk (tests/vm/seekdisk/, `make
# seekdisk`, against the same headers as our modules) for build_initrd to
# ship as /harness/seekdisk.ko.  Only tests/vm/bench calls it, for jobs
# with "# MEMBERS: seek".  Built against KVER's cloud kernel headers only
# (in .cache/seekdisk/ for 6.1, .cache/seekdisk-$KABI/ for another):
# it does not load into a VM_KERNEL_DIR kernel.
build_seekdisk() {
	local dir=$CACHE/seekdisk
	[ "$KVER" = "$KVER_DEFAULT" ] || dir=$CACHE/seekdisk-$KABI
	make -s -C "$SRC" seekdisk >&2 || die "seekdisk build failed"
	SEEKDISK_KO=$dir/seekdisk.ko
	[ -e "$SEEKDISK_KO" ] || die "seekdisk.ko missing in ${SEEKDISK_KO%/*}"
}

# Modules from the distro kernel the guest may need (closure via modules.dep).
GUEST_MODULES="md-mod raid0 raid1 raid10 raid456 linear brd null_blk loop configfs
	dm-mod dm-flakey dm-delay dm-log-writes raid6_pq xor async_tx async_memcpy async_xor async_pq
	async_raid6_recov libcrc32c virtio_pci virtio_blk"
# Also in the guest, but kept out of GUEST_MODULES, which keys the cached
# debug kernel (scripts/debug-kernel.sh): mq-deadline is a module on 6.12
# (t98) and built into 6.1, so the debug kernel would not change.
GUEST_MODULES_MORE="mq-deadline"

GUEST_BINS="/bin/busybox /sbin/mdadm /usr/bin/fio /sbin/dmsetup /sbin/mke2fs"

_copy_with_libs() { # $1=binary $2=staging root
	local bin=$1 root=$2 lib
	mkdir -p "$root$(dirname "$bin")"
	cp -L "$bin" "$root$bin"
	for lib in $(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

build_base() {
	local key root mdir m f
	key=$( {
		echo "$KABI"
		cat "${BASH_SOURCE[0]}"
		# shellcheck disable=SC2086
		ls -lL $GUEST_BINS
		dpkg-query -W busybox-static mdadm fio dmsetup e2fsprogs 2>/dev/null
	} | sha1sum | cut -c1-12)
	# one base per kernel release, so that runs on 6.1 and 6.12 do not
	# rebuild each other's
	BASE=$CACHE/initramfs/base-$KABI-$key.cpio.gz
	[ -e "$BASE" ] && return 0
	echo "vm: building base initramfs (cached as ${BASE#"$SRC"/})" >&2
	mkdir -p "$CACHE/initramfs"
	root=$(mktemp -d "$CACHE/initramfs/stage.XXXXXX")
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,run,mnt,out,etc,lib64,root}
	_copy_with_libs /bin/busybox "$root"
	for f in $(/bin/busybox --list-full); do
		[ -e "$root/$f" ] || { mkdir -p "$root/$(dirname "$f")"; ln -s /bin/busybox "$root/$f"; }
	done
	_copy_with_libs /sbin/mdadm "$root"
	_copy_with_libs /usr/bin/fio "$root"
	_copy_with_libs /sbin/dmsetup "$root"
	# e2fsprogs' mke2fs (ext4), not busybox's applet of that name
	rm -f "$root/sbin/mke2fs"
	_copy_with_libs /sbin/mke2fs "$root"
	echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
	echo "root:x:0:" > "$root/etc/group"
	: > "$root/etc/mdadm.conf"
	# distro modules: the closure of GUEST_MODULES over modules.dep
	mdir=lib/modules/$KABI
	mkdir -p "$root/$mdir"
	local want=() dep
	for m in $GUEST_MODULES $GUEST_MODULES_MORE; do
		dep=$(awk -v m="$m" -F: '{ n=$1; sub(/.*\//, "", n); sub(/\.ko.*/, "", n);
			gsub(/_/, "-", n); mm=m; gsub(/_/, "-", mm);
			if (n == mm) { print $1 $2; exit } }' "$KTREE/$mdir/modules.dep")
		if [ -z "$dep" ]; then
			# md-linear left the kernel in 6.8 (tests do not use it)
			if grep -q "/${m//-/[-_]}\.ko\$" "$KTREE/$mdir/modules.builtin" 2>/dev/null; then
				echo "vm: note: $m is built into $KABI" >&2
			else
				echo "vm: note: $KABI has no module $m" >&2
			fi
			continue
		fi
		# shellcheck disable=SC2206
		want+=($dep)
	done
	for f in $(printf '%s\n' "${want[@]}" | sort -u); do
		mkdir -p "$root/$mdir/$(dirname "$f")"
		cp "$KTREE/$mdir/$f" "$root/$mdir/$f"
	done
	cp "$KTREE/$mdir"/modules.{order,builtin,builtin.modinfo} "$root/$mdir/" 2>/dev/null || true
	depmod -b "$root" "$KABI"
	(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) > "$BASE.tmp"
	mv "$BASE.tmp" "$BASE"
	rm -rf "$root"
	# keep only the newest base image of this release
	find "$CACHE/initramfs" -name "base-$KABI-????????????.cpio.gz" ! -path "$BASE" -delete
	# and none of the days before the release was in the name
	find "$CACHE/initramfs" -regextype egrep -regex '.*/base-[0-9a-f]{12}\.cpio\.gz' -delete
}

# build_tools DIR: compile tests/vm/tools/*.c statically (cached in
# .cache/tools/, rebuilt when the source is newer) and install them in DIR.
build_tools() {
	local dst=$1 c bin
	mkdir -p "$dst" "$CACHE/tools"
	for c in "$VMDIR"/tools/*.c; do
		[ -e "$c" ] || continue
		bin=$CACHE/tools/$(basename "$c" .c)
		if [ ! -e "$bin" ] || [ "$c" -nt "$bin" ]; then
			"${CC:-gcc}" -static -O2 -Wall -Wextra -o "$bin.tmp" "$c" ||
				die "building $c failed"
			mv "$bin.tmp" "$bin"
		fi
		install -m 0755 "$bin" "$dst/"
	done
}

# build_initrd OUT_INITRD  (reads GUEST_CONF: lines of shell assignments)
build_initrd() {
	local out=$1 ov
	build_base
	ov=$(mktemp -d "$CACHE/initramfs/overlay.XXXXXX")
	mkdir -p "$ov/harness/tests" "$ov/harness/bench" "$ov/harness/fork"
	install -m 0755 "$VMDIR/guest/init" "$ov/init"
	install -m 0755 "$VMDIR"/guest/*.sh "$VMDIR/guest/modprobe-guard" "$ov/harness/"
	install -m 0644 "$VMDIR/lib.sh" "$VMDIR/splat-re" "$VMDIR/splat-known.awk" \
		"$ov/harness/"
	cp "$VMDIR"/tests/*.sh "$ov/harness/tests/" 2>/dev/null || true
	# subdirectories (e.g. tests/crash) are not run by the glob, only by name
	find "$VMDIR/tests" -mindepth 1 -maxdepth 1 -type d -exec cp -r {} "$ov/harness/tests/" \;
	# ...and also as DIR-NAME.sh: the runner wants test names without '/'
	for f in "$VMDIR"/tests/*/*.sh; do
		if [ -e "$f" ]; then cp "$f" "$ov/harness/tests/$(basename "$(dirname "$f")")-${f##*/}"; fi
	done
	build_tools "$ov/harness/tools"
	cp "$SRC"/bench/*.fio "$ov/harness/bench/" 2>/dev/null || true
	# VM_EXTRA_BINS: more host binaries for experiments (e.g. /usr/bin/perf)
	for f in ${VM_EXTRA_BINS:-}; do _copy_with_libs "$f" "$ov"; done
	for m in $FORK_MODULES; do
		cp "${FORK_KO_DIR:-$KO_DIR}/$m.ko" "$ov/harness/fork/"
	done
	if [ -n "${SEEKDISK_KO:-}" ]; then
		install -m 0644 "$SEEKDISK_KO" "$ov/harness/seekdisk.ko"
	fi
	# VM_KUNIT_DIR: KUnit test modules for tests/vm/tests/t01-kunit.sh
	# (tests/check-debug.sh builds them against the debug kernel)
	if [ -n "${VM_KUNIT_DIR:-}" ]; then
		mkdir -p "$ov/harness/kunit"
		cp "$VM_KUNIT_DIR"/*.ko "$ov/harness/kunit/" || die "no .ko files in VM_KUNIT_DIR=$VM_KUNIT_DIR"
	fi
	printf '%s\n' "$GUEST_CONF" "TIMEOUT_SCALE=${VM_TIMEOUT_SCALE:-1}" \
		"KMEMLEAK_SCAN=${VM_KMEMLEAK_SCAN:-each}" > "$ov/harness/config"
	(cd "$ov" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) > "$out.overlay"
	cat "$BASE" "$out.overlay" > "$out"
	rm -rf "$ov" "$out.overlay"
}

# ---- accelerator -----------------------------------------------------
# A writable /dev/kvm does not mean KVM can run a guest: under nested
# virtualisation QEMU may abort at once (-cpu max) or hang before the
# kernel prints anything (-cpu host).  So KVM is used only after a tiny
# guest (busybox + an /init that prints a marker) booted with it within
# VM_KVM_PROBE_S seconds (20); otherwise TCG.  The choice is made once per
# run and exported (VM_ACCEL_USED, VM_ACCEL_WHY) so that every runner
# started by the same `make check` reuses it.
#   VM_ACCEL=auto (default) | kvm (fail fast if KVM cannot boot) | tcg
#   VM_KVM=0 is an alias for VM_ACCEL=tcg.
#   -icount in VM_QEMU_ARGS is TCG-only: auto picks tcg, kvm refuses.
VM_KVM_PROBE_S=${VM_KVM_PROBE_S:-20}
PROBE_MARKER=@@KVM-PROBE-BOOTED

# _probe_initrd OUT: busybox and an /init that prints the marker and
# powers off.  The kernel's built-in initramfs already has /dev/console.
_probe_initrd() {
	local root
	root=$(mktemp -d "$CACHE/initramfs/probe.XXXXXX")
	mkdir -p "$root/bin"
	cp -L /bin/busybox "$root/bin/busybox"
	printf '#!/bin/busybox sh\necho %s\n/bin/busybox poweroff -f\n' \
		"$PROBE_MARKER" > "$root/init"
	chmod 0755 "$root/init"
	(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) > "$1"
	rm -rf "$root"
}

# _kvm_probe: 0 when a KVM guest printed the marker; else 1 with the
# reason in PROBE_WHY.  The console goes to .cache/kvm-probe.log.
_kvm_probe() {
	local initrd log t0 rc
	PROBE_LOG=
	if [ ! -e /dev/kvm ]; then
		PROBE_WHY="/dev/kvm not found"
		return 1
	fi
	if [ ! -w /dev/kvm ]; then
		PROBE_WHY="/dev/kvm not writable by $(id -un)"
		return 1
	fi
	initrd=$CACHE/initramfs/kvm-probe.cpio.gz
	log=$CACHE/kvm-probe.log
	_probe_initrd "$initrd"
	t0=$(date +%s%N)
	rc=0
	timeout -k 5 "$VM_KVM_PROBE_S" qemu-system-x86_64 \
		-machine q35,accel=kvm -cpu host -smp 1 -m 256 \
		-display none -serial stdio -monitor none -no-reboot \
		-kernel "$VMLINUZ" -initrd "$initrd" \
		-append "console=ttyS0 quiet panic=-1 rdinit=/init" \
		</dev/null > "$log" 2>&1 || rc=$?
	rm -f "$initrd"
	if grep -aq "^$PROBE_MARKER" "$log"; then
		PROBE_WHY="probe guest booted in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
		return 0
	fi
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		PROBE_WHY="probe guest did not boot within ${VM_KVM_PROBE_S} s"
	else
		PROBE_WHY="qemu exited ($rc) before the probe guest booted: $(grep -av '^$' "$log" | tail -n1)"
	fi
	PROBE_LOG=${log#"$SRC"/}
	return 1
}

# choose_accel: set and export VM_ACCEL_USED (kvm|tcg) and VM_ACCEL_WHY,
# print the choice once.  Needs ensure_setup (the probe boots VMLINUZ).
choose_accel() {
	if [ -n "${VM_ACCEL_USED:-}" ]; then
		case "$VM_ACCEL_USED" in
		kvm|tcg) return 0 ;;
		*) die "VM_ACCEL_USED must be kvm or tcg (got '$VM_ACCEL_USED')" ;;
		esac
	fi
	local mode=${VM_ACCEL:-} used why
	if [ -z "$mode" ]; then
		mode=auto
		[ "${VM_KVM:-1}" = 0 ] && mode=tcg
	fi
	case "$mode" in
	auto|kvm|tcg) ;;
	*) die "VM_ACCEL must be auto, kvm or tcg (got '$mode')" ;;
	esac
	if [ "$mode" = tcg ]; then
		used=tcg why="VM_ACCEL=tcg"
		[ -z "${VM_ACCEL:-}" ] && why="VM_KVM=0"
	elif [[ "${VM_QEMU_ARGS:-}" == *-icount* ]]; then
		[ "$mode" = kvm ] && die "VM_ACCEL=kvm: -icount in VM_QEMU_ARGS needs tcg"
		used=tcg why="-icount in VM_QEMU_ARGS needs tcg"
	elif _kvm_probe; then
		used=kvm why="kvm: $PROBE_WHY"
	elif [ "$mode" = kvm ]; then
		die "VM_ACCEL=kvm: $PROBE_WHY${PROBE_LOG:+ (console: $PROBE_LOG)}; use VM_ACCEL=tcg or auto"
	else
		used=tcg why="kvm: $PROBE_WHY; using tcg"
	fi
	VM_ACCEL_USED=$used VM_ACCEL_WHY=$why
	export VM_ACCEL_USED VM_ACCEL_WHY
	echo "vm: accelerator $used ($why)" >&2
	if [ "$used" = tcg ] && [ -n "${PROBE_LOG:-}" ]; then
		echo "vm: the KVM probe's console is in $PROBE_LOG" >&2
	fi
}

# accel_label: how results name the accelerator: "tcg", "kvm", or with
# extra QEMU options "tcg, 1 vCPU, -icount shift=4,sleep=off".
accel_label() {
	local l=${VM_ACCEL_USED:-unknown}
	[ -n "${VM_QEMU_ARGS:-}" ] && l="$l, ${VM_CPUS:-2} vCPU, $VM_QEMU_ARGS"
	echo "$l"
}

# _boot_watch LOG PIDFILE SECONDS: stop the guest (the process in
# PIDFILE) unless its console shows the harness's boot marker within
# SECONDS.
_boot_watch() {
	local end=$((SECONDS + $3)) pid
	while [ $SECONDS -lt "$end" ]; do
		grep -aq '^@@HARNESS-BEGIN' "$1" 2>/dev/null && return 0
		sleep 1
	done
	grep -aq '^@@HARNESS-BEGIN' "$1" 2>/dev/null && return 0
	pid=$(cat "$2" 2>/dev/null) || return 0
	kill "$pid" 2>/dev/null
	sleep 5
	kill -9 "$pid" 2>/dev/null
	return 0
}

# boot_vm INITRD LOGFILE TIMEOUT_S [DISK_IMAGE...]
# Each DISK_IMAGE becomes a virtio disk (/dev/vda, /dev/vdb, ... in order).
# Streams the serial console to stdout and LOGFILE.  Returns qemu's status
# (124 when the host-side timeout fired), or 125 when the guest did not
# boot: no @@HARNESS-BEGIN from its /init within VM_BOOT_S seconds
# (default 120 under TCG, 60 under KVM), after which QEMU is stopped.
# A guest that did not boot is started once more (VM_BOOT_TRIES, default
# 2): under TCG the debug kernel now and then sits idle in its early
# self tests, and nothing of the guest's /init has run by then, so the
# disks are as they were.  The dead boot's console stays in LOGFILE.noboot.
# Environment: VM_ACCEL (see choose_accel), VM_CPUS (2), VM_MEM (MiB,
# 4096), VM_APPEND (kernel command line), VM_QEMU_ARGS (extra QEMU
# options, split on spaces; e.g. "-icount shift=4" with VM_CPUS=1 makes
# guest time count instructions, see BENCHMARKS.md), VM_TIMEOUT_SCALE
# (integer factor for TIMEOUT_S, the boot bound and, in the guest runner,
# every test's timeout: for slow debug kernels), VM_EXTRA_BINS (host
# binaries copied into the guest with their libraries, for experiments:
# e.g. /usr/bin/perf for `perf stat -e` of tracepoints; its sampling sees
# only idle under -icount).
boot_vm() {
	local tries=${VM_BOOT_TRIES:-2} n=1 rc=0
	[[ "$tries" =~ ^[1-9][0-9]*$ ]] || die "VM_BOOT_TRIES must be a positive number"
	while :; do
		rc=0
		_boot_vm_once "$@" || rc=$?
		[ "$rc" = 125 ] && [ "$n" -lt "$tries" ] || return "$rc"
		mv -f "$2" "$2.noboot"
		n=$((n + 1))
		echo "vm: no boot marker, starting the guest again (try $n of $tries)" >&2
	done
}

_boot_vm_once() {
	local initrd=$1 log=$2 tmo=$(($3 * ${VM_TIMEOUT_SCALE:-1})) extra=() rc disk
	local cpu=max boot_s watch
	shift 3
	for disk in "$@"; do
		[ -n "$disk" ] && extra+=(-drive "file=$disk,if=virtio,format=raw,cache=unsafe")
	done
	local qargs=()
	read -ra qargs <<< "${VM_QEMU_ARGS:-}"
	choose_accel
	[ "$VM_ACCEL_USED" = kvm ] && cpu=host
	boot_s=${VM_BOOT_S:-$((120 * ${VM_TIMEOUT_SCALE:-1}))}
	[ -z "${VM_BOOT_S:-}" ] && [ "$VM_ACCEL_USED" = kvm ] && boot_s=$((60 * ${VM_TIMEOUT_SCALE:-1}))
	[[ "$boot_s" =~ ^[1-9][0-9]*$ ]] || die "VM_BOOT_S must be a positive number of seconds"
	rm -f "$log.pid"
	: > "$log"
	set +e
	_boot_watch "$log" "$log.pid" "$boot_s" &
	watch=$!
	# the watcher stops QEMU through timeout(1), which passes the signal on
	{
		echo "$BASHPID" > "$log.pid"
		exec timeout -k 10 "$tmo" qemu-system-x86_64 \
			-machine "q35,accel=$VM_ACCEL_USED" -cpu "$cpu" \
			-smp "${VM_CPUS:-2}" -m "${VM_MEM:-4096}" \
			-display none -serial stdio -monitor none -no-reboot \
			-kernel "$VMLINUZ" -initrd "$initrd" "${extra[@]}" "${qargs[@]}" \
			-append "console=ttyS0 quiet panic=-1 rdinit=/init ${VM_APPEND:-}"
	} </dev/null 2>&1 | stdbuf -oL tr -d '\r' | tee "$log"
	rc=${PIPESTATUS[0]}
	kill "$watch" 2>/dev/null
	wait "$watch" 2>/dev/null
	set -e
	rm -f "$log.pid"
	if ! grep -aq '^@@HARNESS-BEGIN' "$log"; then
		BOOT_FAIL="guest did not boot (accel=$(accel_label), see ${log#"$SRC"/})"
		echo "vm: $BOOT_FAIL: no boot marker within ${boot_s}s (qemu exit $rc)" >&2
		return 125
	fi
	return "$rc"
}

# Kernel messages that fail a run wherever they appear: one extended regex,
# shared with the guest (bench_finish in lib.sh) through the initramfs.
SPLAT_RE=$(cat "$VMDIR/splat-re")

# splat_lines LOG: the lines of a guest console log that fail a run, after
# splat-known.awk has taken out the known bugs outside md (the guest's
# splat_lines in lib.sh does the same with its kernel log).
splat_lines() {
	if [ ! -r "$VMDIR/splat-known.awk" ]; then
		echo "harness: cannot read $VMDIR/splat-known.awk"
		return 0
	fi
	awk -f "$VMDIR/splat-known.awk" "$1" | grep -aE "$SPLAT_RE"
}
