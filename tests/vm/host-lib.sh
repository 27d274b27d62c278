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
#   overlay /init, the guest harness, tests, bench jobs, our .ko files and
#           the run configuration.  Rebuilt on every run (small, fast).

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=$SRC/.cache
VMDIR=$SRC/tests/vm
RESULTS=$SRC/results

die() { echo "${0##*/}: $*" >&2; exit 2; }

ensure_setup() {
	if [ ! -e "$CACHE/kabi.mk" ] || ! grep -q '^KABI := ' "$CACHE/kabi.mk" ||
	   [ ! -e "$CACHE/kernel-$(sed -n 's/^KABI := //p' "$CACHE/kabi.mk")/.done" ] ||
	   ! command -v qemu-system-x86_64 >/dev/null; then
		"$VMDIR/setup.sh"
	fi
	KABI=$(sed -n 's/^KABI := //p' "$CACHE/kabi.mk")
	KTREE=$CACHE/kernel-$KABI
	# VM_KERNEL_DIR: boot another kernel tree of the same layout instead
	# (boot/vmlinuz-REL, lib/modules/REL; scripts/debug-kernel.sh makes one)
	if [ -n "${VM_KERNEL_DIR:-}" ]; then
		local dep=("$VM_KERNEL_DIR"/lib/modules/*/modules.dep)
		[ -e "${dep[0]}" ] || die "VM_KERNEL_DIR=$VM_KERNEL_DIR has no lib/modules/REL/modules.dep"
		KTREE=$VM_KERNEL_DIR KABI=$(basename "$(dirname "${dep[0]}")")
	fi
	VMLINUZ=$KTREE/boot/vmlinuz-$KABI
	[ -e "$VMLINUZ" ] || die "no kernel image at $VMLINUZ (run tests/vm/setup.sh)"
}

# Build our modules unless NO_BUILD=1 (kbuild is incremental: cheap no-op).
# FORK_KO_DIR: take prebuilt .ko files from there instead (no build).
build_modules() {
	if [ "${NO_BUILD:-0}" != 1 ] && [ -z "${FORK_KO_DIR:-}" ]; then
		make -s -C "$SRC" modules >&2 || die "module build failed"
	fi
	local m
	for m in md-mod raid1 raid456; do
		[ -e "${FORK_KO_DIR:-$SRC}/$m.ko" ] || die "$m.ko missing in ${FORK_KO_DIR:-$SRC}"
	done
}

# Modules from the distro kernel the guest may need (closure via modules.dep).
GUEST_MODULES="md-mod raid0 raid1 raid10 raid456 linear brd null_blk configfs
	dm-mod dm-flakey dm-delay raid6_pq xor async_tx async_memcpy async_xor async_pq
	async_raid6_recov libcrc32c virtio_pci virtio_blk"

GUEST_BINS="/bin/busybox /sbin/mdadm /usr/bin/fio /sbin/dmsetup"

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
		dpkg-query -W busybox-static mdadm fio dmsetup 2>/dev/null
	} | sha1sum | cut -c1-12)
	BASE=$CACHE/initramfs/base-$key.cpio.gz
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
	echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
	echo "root:x:0:" > "$root/etc/group"
	: > "$root/etc/mdadm.conf"
	# distro modules: the closure of GUEST_MODULES over modules.dep
	mdir=lib/modules/$KABI
	mkdir -p "$root/$mdir"
	local want=() dep
	for m in $GUEST_MODULES; do
		dep=$(awk -v m="$m" -F: '{ n=$1; sub(/.*\//, "", n); sub(/\.ko.*/, "", n);
			gsub(/_/, "-", n); mm=m; gsub(/_/, "-", mm);
			if (n == mm) { print $1 $2; exit } }' "$KTREE/$mdir/modules.dep")
		[ -n "$dep" ] || { echo "vm: note: $m is not a module in $KABI (built in?)" >&2; continue; }
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
	# keep only the newest base image
	find "$CACHE/initramfs" -name 'base-*.cpio.gz' ! -path "$BASE" -delete
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
	install -m 0644 "$VMDIR/lib.sh" "$VMDIR/splat-re" "$ov/harness/"
	cp "$VMDIR"/tests/*.sh "$ov/harness/tests/" 2>/dev/null || true
	# subdirectories (e.g. tests/crash) are not run by the glob, only by name
	find "$VMDIR/tests" -mindepth 1 -maxdepth 1 -type d -exec cp -r {} "$ov/harness/tests/" \;
	# ...and also as DIR-NAME.sh: the runner wants test names without '/'
	for f in "$VMDIR"/tests/*/*.sh; do
		if [ -e "$f" ]; then cp "$f" "$ov/harness/tests/$(basename "$(dirname "$f")")-${f##*/}"; fi
	done
	build_tools "$ov/harness/tools"
	cp "$SRC"/bench/*.fio "$ov/harness/bench/" 2>/dev/null || true
	cp "${FORK_KO_DIR:-$SRC}"/{md-mod,raid1,raid456}.ko "$ov/harness/fork/"
	printf '%s\n' "$GUEST_CONF" "TIMEOUT_SCALE=${VM_TIMEOUT_SCALE:-1}" > "$ov/harness/config"
	(cd "$ov" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) > "$out.overlay"
	cat "$BASE" "$out.overlay" > "$out"
	rm -rf "$ov" "$out.overlay"
}

# boot_vm INITRD LOGFILE TIMEOUT_S [DISK_IMAGE...]
# Each DISK_IMAGE becomes a virtio disk (/dev/vda, /dev/vdb, ... in order).
# Streams the serial console to stdout and LOGFILE.  Returns qemu's status
# (124 when the host-side timeout fired).
# Environment: VM_CPUS (2), VM_MEM (MiB, 4096), VM_APPEND (kernel command
# line), VM_KVM=0 (TCG even where /dev/kvm exists), VM_QEMU_ARGS (extra
# QEMU options, split on spaces; e.g. "-icount shift=4" with VM_CPUS=1
# makes guest time count instructions, see BENCHMARKS.md), VM_TIMEOUT_SCALE
# (integer factor for TIMEOUT_S and, in the guest runner, every test's
# timeout: for slow debug kernels).
boot_vm() {
	local initrd=$1 log=$2 tmo=$(($3 * ${VM_TIMEOUT_SCALE:-1})) extra=() rc disk
	shift 3
	for disk in "$@"; do
		[ -n "$disk" ] && extra+=(-drive "file=$disk,if=virtio,format=raw,cache=unsafe")
	done
	local accel=tcg qargs=()
	read -ra qargs <<< "${VM_QEMU_ARGS:-}"
	[ -w /dev/kvm ] && [ "${VM_KVM:-1}" = 1 ] && accel=kvm
	set +e
	timeout -k 10 "$tmo" qemu-system-x86_64 \
		-machine "q35,accel=$accel" -cpu max -smp "${VM_CPUS:-2}" -m "${VM_MEM:-4096}" \
		-display none -serial stdio -monitor none -no-reboot \
		-kernel "$VMLINUZ" -initrd "$initrd" "${extra[@]}" "${qargs[@]}" \
		-append "console=ttyS0 quiet panic=-1 rdinit=/init ${VM_APPEND:-}" \
		</dev/null 2>&1 | tr -d '\r' | tee "$log"
	rc=${PIPESTATUS[0]}
	set -e
	return "$rc"
}

# Kernel messages that fail a run wherever they appear: one extended regex,
# shared with the guest (bench_finish in lib.sh) through the initramfs.
SPLAT_RE=$(cat "$VMDIR/splat-re")
