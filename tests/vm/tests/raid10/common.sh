# SPDX-License-Identifier: GPL-2.0
# Helpers of the RAID10 tests (t103, t104): arrays on RAM disks
# /dev/ram0..N-1 of R10_KIB each (the caller runs brd_setup), /dev/md0.

R10_MD=/dev/md0
R10_KIB=16384

# r10_create LAYOUT N CHUNK_KIB [mdadm args...]: the first N RAM disks
# wiped (their first MiB, where a superblock may be) into a RAID10 with
# 1.2 superblocks (R10_META: another version) using 12 MiB of each;
# waits for the initial resync.
# Sets DEVS.
r10_create() {
	_lay=$1 _n=$2 _chunk=$3
	shift 3
	md_stop_all
	DEVS=
	_i=0
	while [ $_i -lt "$_n" ]; do
		dd if=/dev/zero of=/dev/ram$_i bs=1M count=1 2>/dev/null
		DEVS="$DEVS /dev/ram$_i"
		_i=$((_i + 1))
	done
	# shellcheck disable=SC2086 # DEVS: a word list
	mdadm --create $R10_MD --run --level=10 --layout="$_lay" \
		--raid-devices="$_n" --chunk="$_chunk" --size=$((R10_KIB - 4096)) \
		--metadata="${R10_META:-1.2}" "$@" $DEVS < /dev/null || return 1
	wait_resync md0 300 || return 1
	mdstat_array md0
}

# ---- one layout end to end (r10_case), for t103 and t107 -------------------

MD=$R10_MD
KIB=$R10_KIB

# mk LAYOUT N CHUNK_KIB: a RAID10 on the first N RAM disks, resynced
mk() { r10_create "$@"; }

# words LAYOUT N CHUNK_KIB: what /proc/mdstat must say after "blocks super 1.2"
words() {
	_k=${1%[0-9]*} _c=${1#?} _w=
	_near=1 _far=1
	case $_k in n) _near=$_c ;; *) _far=$_c ;; esac
	[ "$_near" -lt "$2" ] && _w="$3K chunks"
	[ "$_near" -gt 1 ] && _w="$_w $_near near-copies"
	[ "$_k" = f ] && _w="$_w $_far far-copies"
	[ "$_k" = o ] && _w="$_w $_far offset-copies"
	echo "${_w# } [$2/$2]"
}

# copies LAYOUT: NEAR and FAR set from an mdadm layout name (n2, f2, o3)
copies() {
	NEAR=1 FAR=1
	case $1 in n*) NEAR=${1#n} ;; *) FAR=${1#?} ;; esac
}

# status_right LAYOUT N CHUNK_KIB: mdstat words and the array size
status_right() {
	_want=$(words "$@")
	copies "$1"
	_line=$(mdstat_array md0 | sed -n 2p)
	echo "mdstat: $_line"
	echo "want:   ... super 1.2 $_want"
	case $_line in *"super 1.2 $_want"*) ;; *) return 1 ;; esac
	_comp=$(cat /sys/block/md0/md/component_size)
	_size=$(( (_comp / $3 / FAR * $2 / NEAR) * $3 ))
	_got=$(( $(blockdev --getsize64 $MD) / 1024 ))
	echo "component_size $_comp KiB: array $_got KiB, want $_size"
	[ "$_got" = "$_size" ]
}

# fio's data below the last 64 KiB, which dd writes and reads
ARRAY_BYTES=0 FIO_BYTES=0
write_all() {
	ARRAY_BYTES=$(blockdev --getsize64 $MD)
	FIO_BYTES=$((ARRAY_BYTES - 65536))
	fio_write_verify $MD "$FIO_BYTES" --number_ios=4096 > /tmp/fio.out 2>&1
	fio_log_ok $? || return 1
	# the last 64 KiB too, where the last chunk lives
	dd if=/dev/urandom of=/tmp/tail bs=64k count=1 2>/dev/null &&
	dd if=/tmp/tail of=$MD bs=64k seek=$((ARRAY_BYTES / 65536 - 1)) oflag=direct 2>/dev/null
}

verify_all() {
	fio_verify_only $MD "$FIO_BYTES" --number_ios=4096 > /tmp/fio.out 2>&1
	fio_log_ok $? || return 1
	dd if=$MD bs=64k skip=$((ARRAY_BYTES / 65536 - 1)) count=1 iflag=direct 2>/dev/null |
		cmp - /tmp/tail
}

reassemble_verify() {
	mdadm --stop $MD || return 1
	# shellcheck disable=SC2086
	mdadm --assemble $MD $DEVS || return 1
	mdstat_array md0
	verify_all
}

# fail_under_load DEV: fail DEV while fio writes (and verifies)
# load_start / load_end: the first 1024 blocks of write_all's set written
# again (the same data) and verified, at 1 MiB/s (about 4 s), in the
# background; load_end waits for it and fails on any fio error
load_start() {
	(fio_write_verify $MD "$FIO_BYTES" --number_ios=1024 --rate=1m \
		> /tmp/fio.out 2>&1; echo $? > /tmp/fio.rc) &
	sleep 1
}
load_end() {
	wait
	fio_log_ok "$(cat /tmp/fio.rc)"
}

# fail_under_load DEV: fail DEV while fio writes (and verifies)
fail_under_load() {
	load_start
	sleep 1
	mdadm --fail $MD "$1" || { wait; return 1; }
	load_end || return 1
	mdstat_array md0
	mdstat_array md0 | grep -q "\[$N/$((N - 1))\]"
}

degraded_verify() { verify_all; }

# readd_blank DEV: DEV removed, wiped and added back blank while fio
# writes; the recovery completes under that load
readd_blank() {
	mdadm --remove $MD "$1" || return 1
	mdadm --zero-superblock "$1" || return 1
	load_start
	mdadm --add $MD "$1" || { wait; return 1; }
	load_end || return 1
	sleep 1
	wait_resync md0 300 || return 1
	mdstat_array md0
	mdstat_array md0 | grep -q "\[$N/$N\]"
}

rebuilt_verify() { verify_all && md_check_clean md0 120; }

# alone_verify OTHER: fail OTHER (the rebuilt member's partner): the
# rebuilt member alone holds that half, the data verifies
alone_verify() {
	mdadm --fail $MD "$1" || return 1
	mdstat_array md0
	verify_all
}

# last_copy_kept A B: A failed, then B (A's only partner) refused
last_copy_kept() {
	mdadm --fail $MD "$1" || return 1
	mdadm --fail $MD "$2"
	mdadm --detail $MD | tail -n "$N"
	_s=$(mdadm --detail $MD | grep " $2\$")
	echo "$2: $_s"
	case $_s in *"active sync"*) ;; *) return 1 ;; esac
	verify_all
}

# r10_case LAYOUT N CHUNK_KIB: nine KTAP results for one layout (t103's
# header says what each asserts)
r10_case() {
	_nm="$1 x$2 ${3}K"
	N=$2
	ktap_check "$_nm: created, initial resync done" mk "$@"
	ktap_check "$_nm: mdstat words and array size as in-tree" status_right "$@"
	ktap_check "$_nm: data over the whole array verifies" write_all
	ktap_check "$_nm: check finds every copy equal" md_check_clean md0 120
	ktap_check "$_nm: stop, assemble, data verifies" reassemble_verify
	ktap_check "$_nm: member failed under fio: no error, degraded" fail_under_load /dev/ram0
	ktap_check "$_nm: degraded, every block reads back" degraded_verify
	ktap_check "$_nm: blank member added, recovery rebuilds it" readd_blank /dev/ram0
	ktap_check "$_nm: rebuilt copies verify and check clean" rebuilt_verify
}

