# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers shared by t100-t102, the linear and RAID0 tests (sourced after
# lib.sh).  The array is md0; its members are device-mapper slices
# s0..sN-1 of one RAM disk, back to back, so that members can have any
# size and any of them can be switched to the error target.
#
# Geometry (r0_geom) is computed here from what the members' superblocks
# record (mdadm --examine), not from md: where each array sector lives
# (linear: members one after the other; RAID0: zones of equal-size
# strips, the original or the alternate multi-zone layout), the member
# and zone boundaries, the array size.  r0_placed then checks that md
# put a block where that computation says, reading the member directly.

R0_MD=/dev/md0
export DM_DISABLE_UDEV=1	# no udev in the guest: dmsetup makes the nodes

# ---- members ------------------------------------------------------------

r0_slices_remove() {
	for _n in $(dmsetup ls 2>/dev/null | awk '$1 ~ /^s[0-9]+$/ { print $1 }'); do
		dmsetup remove "$_n" || return 1
	done
	return 0
}

# r0_slices KIB...: a fresh RAM disk (all zeroes) holding one slice per
# size, sI linear over its part of ram0; R0_SL_I is "START LENGTH" of sI
# in sectors of ram0
r0_slices() {
	md_stop_all
	r0_slices_remove || return 1
	_t=0
	for _k in "$@"; do _t=$((_t + _k)); done
	brd_setup 1 "$_t" || return 1
	modprobe dm-mod || return 1
	_i=0
	_st=0
	for _k in "$@"; do
		dmsetup create "s$_i" --table "0 $((_k * 2)) linear /dev/ram0 $_st" ||
			return 1
		eval "R0_SL_$_i=\"$_st $((_k * 2))\""
		_st=$((_st + _k * 2))
		_i=$((_i + 1))
	done
	dmsetup table
}

r0_teardown() {
	md_stop_all
	r0_slices_remove
	brd_teardown
}

# r0_devs FIRST N: "/dev/mapper/sFIRST ... " (N slices)
r0_devs() {
	_l=
	_i=$1
	while [ "$_i" -lt $(($1 + $2)) ]; do
		_l="$_l /dev/mapper/s$_i"
		_i=$((_i + 1))
	done
	echo "$_l"
}

# r0_slice_fail I: every I/O to sI fails from now on (error target)
r0_slice_fail() {
	eval "set -- $1 \$R0_SL_$1"
	dm_swap "s$1" "0 $3 error"
}

# r0_slice_heal I: sI maps its part of ram0 again
r0_slice_heal() {
	eval "set -- $1 \$R0_SL_$1"
	dm_swap "s$1" "0 $3 linear /dev/ram0 $2"
}

# r0_zero DEV...: no superblock of any version left on DEV (mdadm finds
# 0.90 and 1.0 superblocks near the end, 1.1/1.2 near the start)
r0_zero() {
	for _d in "$@"; do
		mdadm --zero-superblock "$_d" 2>/dev/null
		_s=$(blockdev --getsz "$_d") || return 1
		dd if=/dev/zero of="$_d" bs=4k count=256 oflag=direct 2>/dev/null &&
		dd if=/dev/zero of="$_d" bs=4k seek=$((_s / 8 - 256)) count=256 \
			oflag=direct 2>/dev/null || return 1
	done
}

# ---- the kernel log ----------------------------------------------------------

# r0_log_mark: a marker line in the kernel log; r0_log_since prints what
# the kernel logged after the latest one (the log is never cleared: the
# runner checks all of it once the test ends)
r0_log_mark() {
	R0_MARK="harness-r0-mark-$(cut -d' ' -f1 /proc/uptime)"
	echo "$R0_MARK" > /dev/kmsg
}

r0_log_since() { dmesg | sed -n "/$R0_MARK/,\$p" | sed 1d; }

# ---- the raid0 module's default_layout ----------------------------------

R0_PARAM=/sys/module/raid0/parameters/default_layout

# r0_param V: the raid0 module is loaded (in-tree: modprobe; the fork's
# is loaded by load_impl) and its default_layout is V
r0_param() {
	if [ ! -d /sys/module/raid0 ] && [ "$(impl_loaded)" != fork ]; then
		modprobe raid0 || return 1
	fi
	[ -w $R0_PARAM ] || { echo "no writable $R0_PARAM"; return 1; }
	echo "$1" > $R0_PARAM || return 1
	[ "$(cat $R0_PARAM)" = "$1" ]
}

# ---- linear availability --------------------------------------------------

# intree_has_linear: the running kernel ships md's linear module (in-tree
# md-linear was removed in Linux 6.8)
intree_has_linear() {
	grep -Eq '(^|/)linear\.ko(\.[a-z]+)?:' "/lib/modules/$(uname -r)/modules.dep"
}

# shellcheck disable=SC2034 # for the tests
R0_NO_LINEAR="in-tree md on $(uname -r) has no linear personality (md-linear was removed in Linux 6.8)"

# ---- geometry --------------------------------------------------------------

# r0_member_geom DEV: print "DATA_OFFSET USABLE CHUNK_SECTORS" of DEV as
# its superblock records them (sectors; 1.x: Data Offset and Avail Dev
# Size; 0.90: data at 0 and the 64 KiB-aligned superblock area at the
# end; the chunk: Chunk Size for RAID0, Rounding for linear)
r0_member_geom() {
	mdadm --examine "$1" > /tmp/r0.examine 2>&1 || { cat /tmp/r0.examine; return 1; }
	_v=$(md_field Version < /tmp/r0.examine)
	_c=$(md_field "Chunk Size" < /tmp/r0.examine)
	[ -n "$_c" ] || _c=$(md_field Rounding < /tmp/r0.examine)
	_c=${_c%K}
	case "$_v" in
	0.90*)
		_o=0
		_u=$(( ($(blockdev --getsz "$1") & ~127) - 128 )) ;;
	1.*)
		_o=$(md_field "Data Offset" < /tmp/r0.examine | awk '{ print $1 }')
		_u=$(md_field "Avail Dev Size" < /tmp/r0.examine | awk '{ print $1 }') ;;
	*)	echo "$1: superblock version '$_v'?"; cat /tmp/r0.examine; return 1 ;;
	esac
	echo "${_o:-0} $_u $((${_c:-0} * 2))"
}

# r0_geom LEVEL LAYOUT DEV...: the geometry of the array over DEV...
# (role order; LEVEL linear or raid0; LAYOUT 1 original, 2 alternate,
# only used by multi-zone RAID0).  Sets G_N, G_DEV_i, G_OFF_i (data
# offset), G_SZ_i (usable sectors, rounded down to the chunk), G_CS
# (chunk sectors), G_END (array sectors), G_BOUNDS (interior member
# or zone boundaries, sectors) and for RAID0 the zones: G_NZ, G_ZS_z
# (first array sector), G_ZE_z (end), G_ZD_z (member sector where it
# starts), G_ZN_z (members), G_ZL_z (their roles).
r0_geom() {
	G_LEVEL=$1 G_LAYOUT=$2
	shift 2
	G_N=0
	G_CS=
	for _d in "$@"; do
		_g=$(r0_member_geom "$_d") || { echo "$_g"; return 1; }
		# shellcheck disable=SC2086 # three numbers
		set -- $_g "$@"
		_cs=$3
		[ -z "$G_CS" ] && G_CS=$_cs
		[ "$G_CS" = "$_cs" ] || { echo "$_d: chunk $_cs sectors, member 0 says $G_CS"; return 1; }
		_u=$2
		[ "$_cs" -gt 0 ] && _u=$((_u / _cs * _cs))
		eval "G_DEV_$G_N=$_d G_OFF_$G_N=$1 G_SZ_$G_N=$_u"
		shift 3
		G_N=$((G_N + 1))
	done
	G_BOUNDS=
	if [ "$G_LEVEL" = linear ]; then
		G_END=0
		_i=0
		while [ $_i -lt "$G_N" ]; do
			[ $_i -gt 0 ] && G_BOUNDS="$G_BOUNDS $G_END"
			G_END=$((G_END + $(eval echo "\$G_SZ_$_i")))
			_i=$((_i + 1))
		done
	else
		[ "$G_CS" -gt 0 ] || { echo "raid0 without a chunk size"; return 1; }
		_prev=0 _zs=0 G_NZ=0
		while :; do
			_lv=
			_i=0
			while [ $_i -lt "$G_N" ]; do
				_sz=$(eval echo "\$G_SZ_$_i")
				if [ "$_sz" -gt "$_prev" ] && { [ -z "$_lv" ] || [ "$_sz" -lt "$_lv" ]; }; then
					_lv=$_sz
				fi
				_i=$((_i + 1))
			done
			[ -n "$_lv" ] || break
			_zl='' _zn=0 _i=0
			while [ $_i -lt "$G_N" ]; do
				if [ "$(eval echo "\$G_SZ_$_i")" -gt "$_prev" ]; then
					_zl="$_zl $_i"
					_zn=$((_zn + 1))
				fi
				_i=$((_i + 1))
			done
			[ $G_NZ -gt 0 ] && G_BOUNDS="$G_BOUNDS $_zs"
			eval "G_ZS_$G_NZ=$_zs G_ZD_$G_NZ=$_prev G_ZN_$G_NZ=$_zn G_ZL_$G_NZ=\"$_zl\""
			_zs=$((_zs + (_lv - _prev) * _zn))
			eval "G_ZE_$G_NZ=$_zs"
			_prev=$_lv
			G_NZ=$((G_NZ + 1))
		done
		G_END=$_zs
	fi
	return 0
}

# r0_geom_show: the geometry, for the log
r0_geom_show() {
	_i=0
	while [ $_i -lt "$G_N" ]; do
		eval "echo \"member $_i: \$G_DEV_$_i data offset \$G_OFF_$_i usable \$G_SZ_$_i\""
		_i=$((_i + 1))
	done
	echo "$G_LEVEL, chunk $G_CS sectors, array $G_END sectors, boundaries:$G_BOUNDS"
	[ "$G_LEVEL" = linear ] && return 0
	_z=0
	while [ $_z -lt "$G_NZ" ]; do
		eval "echo \"zone $_z: [\$G_ZS_$_z, \$G_ZE_$_z) members\$G_ZL_$_z from member sector \$G_ZD_$_z\""
		_z=$((_z + 1))
	done
}

# r0_map SECTOR [LAYOUT]: where array SECTOR lives: sets M_ROLE (the
# member) and M_SEC (sector past its data offset).  RAID0 zone z holds
# its share of the array in strips of one chunk per member, in role
# order; the member of a chunk is its number modulo the zone's member
# count, counted from the array's start in the original layout (1) and
# from the zone's start in the alternate one (2).
r0_map() {
	_s=$1
	_lay=${2:-$G_LAYOUT}
	if [ "$G_LEVEL" = linear ]; then
		_i=0 _b=0
		while [ $_i -lt "$G_N" ]; do
			_sz=$(eval echo "\$G_SZ_$_i")
			if [ "$_s" -lt $((_b + _sz)) ]; then
				M_ROLE=$_i M_SEC=$((_s - _b))
				return 0
			fi
			_b=$((_b + _sz))
			_i=$((_i + 1))
		done
		return 1
	fi
	_z=0
	while [ $_z -lt "$G_NZ" ]; do
		_zs=0 _ze=0 _zd=0 _zn=1 _zl=''
		eval "_zs=\$G_ZS_$_z _ze=\$G_ZE_$_z _zd=\$G_ZD_$_z _zn=\$G_ZN_$_z _zl=\"\$G_ZL_$_z\""
		if [ "$_s" -lt "$_ze" ]; then
			_o=$((_s - _zs))
			if [ "$_lay" = 1 ]; then
				_k=$(( (_s / G_CS) % _zn ))
			else
				_k=$(( (_o / G_CS) % _zn ))
			fi
			# shellcheck disable=SC2086 # the zone's roles
			set -- $_zl
			shift "$_k"
			M_ROLE=$1
			M_SEC=$((_zd + (_o / (G_CS * _zn)) * G_CS + _o % G_CS))
			return 0
		fi
		_z=$((_z + 1))
	done
	return 1
}

# r0_samples: 4 KiB-aligned array sectors worth checking: for linear the
# first and last 4 KiB of every member's stretch; for RAID0 the start
# of each of the first 2N+1 chunks of every zone (N its members) and the
# zone's last 4 KiB
r0_samples() {
	if [ "$G_LEVEL" = linear ]; then
		_i=0 _b=0
		while [ $_i -lt "$G_N" ]; do
			_e=$((_b + $(eval echo "\$G_SZ_$_i")))
			echo $(( (_b + 7) / 8 * 8 )) $(( _e / 8 * 8 - 8 ))
			_b=$_e
			_i=$((_i + 1))
		done
		return 0
	fi
	_z=0
	while [ $_z -lt "$G_NZ" ]; do
		eval "_zs=\$G_ZS_$_z _ze=\$G_ZE_$_z _zn=\$G_ZN_$_z"
		_c=0
		while [ $_c -le $((2 * _zn)) ] && [ $((_zs + _c * G_CS)) -lt "$_ze" ]; do
			echo $((_zs + _c * G_CS))
			_c=$((_c + 1))
		done
		echo $((_ze / 8 * 8 - 8))
		_z=$((_z + 1))
	done
}

# r0_placed: write a random 4 KiB block through md0 at every sample and
# find it on the member, at the sector r0_map computes
r0_placed() {
	_n=0
	for _s in $(r0_samples); do
		r0_map "$_s" || { echo "sector $_s is past the array ($G_END)"; return 1; }
		_dev='' _off=0
		eval "_dev=\$G_DEV_$M_ROLE _off=\$G_OFF_$M_ROLE"
		dd if=/dev/urandom of=/tmp/r0.blk bs=4k count=1 2>/dev/null
		if ! dd if=/tmp/r0.blk of=$R0_MD bs=4k seek=$((_s / 8)) count=1 \
			oflag=direct conv=notrunc 2>/dev/null; then
			echo "writing array sector $_s failed"
			return 1
		fi
		dd if="$_dev" of=/tmp/r0.got bs=4k iflag=direct,skip_bytes,count_bytes \
			skip=$(( (_off + M_SEC) * 512 )) count=4096 2>/dev/null
		if ! cmp -s /tmp/r0.blk /tmp/r0.got; then
			echo "array sector $_s is not at member $M_ROLE ($_dev) data sector $M_SEC"
			return 1
		fi
		_n=$((_n + 1))
	done
	echo "$_n blocks found where the geometry puts them"
	[ $_n -gt 0 ]
}

# r0_layouts_differ: some sample sits on another member under the
# other multi-zone layout (else a layout mix-up would go unnoticed)
r0_layouts_differ() {
	for _s in $(r0_samples); do
		r0_map "$_s" 1 || return 1
		_a="$M_ROLE $M_SEC"
		r0_map "$_s" 2 || return 1
		if [ "$_a" != "$M_ROLE $M_SEC" ]; then
			echo "array sector $_s: original layout member/sector $_a, alternate $M_ROLE $M_SEC"
			return 0
		fi
	done
	echo "the original and alternate layouts put every sample in the same place"
	return 1
}

# ---- size and status ----------------------------------------------------------

# r0_size_right: md0's size (sysfs and mdadm --detail's Array Size) is
# the geometry's
r0_size_right() {
	_sys=$(cat /sys/block/md0/size)
	_det=$(mdadm --detail $R0_MD | md_field "Array Size" | awk '{ print $1 }')
	echo "md0 $_sys sectors, --detail Array Size $_det KiB, geometry $G_END sectors"
	[ "$_sys" = "$G_END" ] && [ "$_det" = $((G_END / 2)) ]
}

# r0_mdstat_right WORDS LINE2: md0's /proc/mdstat entry says "active
# WORDS" with N members ([0]..[N-1]) and its second line is
# "<G_END/2> blocks LINE2"
r0_mdstat_right() {
	mdstat_array md0
	_l1=$(mdstat_array md0 | head -n1)
	_l2=$(mdstat_array md0 | sed -n 2p | sed 's/^ *//')
	case "$_l1" in
	"md0 : active $1 "*) ;;
	*) echo "first line is not 'md0 : active $1 ...'"; return 1 ;;
	esac
	_i=0
	while [ $_i -lt "$G_N" ]; do
		echo "$_l1" | grep -q "\[$_i\]" || { echo "no member [$_i]"; return 1; }
		_i=$((_i + 1))
	done
	echo "$_l1" | grep -q "\[$G_N\]" && { echo "a member [$G_N] too many"; return 1; }
	[ "$_l2" = "$((G_END / 2)) blocks $2" ] ||
		{ echo "second line '$_l2', want '$((G_END / 2)) blocks $2'"; return 1; }
}

# r0_detail_has FIELD VALUE...: mdadm --detail md0 shows those fields
r0_detail_has() {
	mdadm --detail $R0_MD > /tmp/r0.detail || return 1
	cat /tmp/r0.detail
	while [ $# -ge 2 ]; do
		_v=$(md_field "$1" < /tmp/r0.detail)
		[ "$_v" = "$2" ] || { echo "--detail '$1' is '$_v', want '$2'"; return 1; }
		shift 2
	done
}

# ---- data -------------------------------------------------------------------

# r0_fio MODE RW BS OFFSET SIZE SEED: one fio job on md0 (bytes); MODE
# write (write, then verify) or verify (verify_only)
r0_fio() {
	_mode=$1 _rw=$2 _bs=$3 _off=$4 _sz=$5 _seed=$6
	if [ "$_mode" = write ]; then set -- --do_verify=1; else set -- --verify_only; fi
	(cd /tmp && fio --name="r$_seed" --filename=$R0_MD --rw="$_rw" --bs="$_bs" \
		--ioengine=libaio --iodepth=16 --direct=1 --size="$_sz" \
		--offset="$_off" --verify=crc32c --verify_fatal=1 \
		--randrepeat=1 --randseed="$_seed" --verify_state_save=0 \
		--eta=never "$@") > /tmp/fio.out 2>&1
	if ! fio_log_ok $? > /tmp/fio.sum; then
		cat /tmp/fio.sum
		echo "fio $_mode $_rw bs=$_bs offset=$_off size=$_sz seed=$_seed failed"
		return 1
	fi
	echo "fio $_mode $_rw bs=$_bs offset=$_off size=$_sz: ok"
}

R0_REG=1056768	# 86 blocks of 12 KiB

# r0_data SET MODE: data set SET over the geometry's regions, MODE write
# (write and verify) or verify.
#  set 1: 12 KiB random blocks (4 KiB-aligned, so they cross chunk and
#         member boundaries) over 1032 KiB at the array's start, around
#         every boundary and ending at the last 4 KiB of the array;
#  set 2: 256 KiB sequential blocks over 1 MiB from 4 KiB past the middle
#         of every stretch between boundaries.
# The regions do not overlap as long as stretches are 4 MiB or more.
r0_data() {
	_end4=$(((G_END / 8) * 4096))
	_seed=$((100 * $1))
	if [ "$1" = 1 ]; then
		r0_fio "$2" randwrite 12k 0 $R0_REG $_seed || return 1
		for _b in $G_BOUNDS; do
			_seed=$((_seed + 1))
			_o=$(((_b / 8) * 4096 - R0_REG / 2))
			r0_fio "$2" randwrite 12k $_o $R0_REG $_seed || return 1
		done
		r0_fio "$2" randwrite 12k $((_end4 - R0_REG)) $R0_REG $((_seed + 1))
		return
	fi
	_lo=0
	for _b in $G_BOUNDS $G_END; do
		_seed=$((_seed + 1))
		_o=$(( ((_lo + _b) / 16) * 4096 + 4096 ))
		r0_fio "$2" write 256k $_o 1M $_seed || return 1
		_lo=$_b
	done
}

# r0_tail: the array's very last sector (512 bytes, which may not be part
# of any 4 KiB block) can be written and read back
r0_tail() {
	dd if=/dev/urandom of=/tmp/r0.tail bs=512 count=1 2>/dev/null
	dd if=/tmp/r0.tail of=$R0_MD bs=512 seek=$((G_END - 1)) count=1 \
		oflag=direct conv=notrunc 2>/dev/null || { echo "write failed"; return 1; }
	dd if=$R0_MD of=/tmp/r0.tail2 bs=512 skip=$((G_END - 1)) count=1 \
		iflag=direct 2>/dev/null || { echo "read failed"; return 1; }
	cmp /tmp/r0.tail /tmp/r0.tail2 || return 1
	echo "sector $((G_END - 1)) written and read back"
}

# r0_blk_sum SECTOR: md5 of the 4 KiB at array SECTOR, read with O_DIRECT
# (fails when the read fails)
r0_blk_sum() {
	dd if=$R0_MD of=/tmp/r0.rd bs=4k skip=$(($1 / 8)) count=1 iflag=direct 2>/dev/null &&
		[ "$(wc -c < /tmp/r0.rd)" = 4096 ] &&
		md5sum < /tmp/r0.rd | cut -d' ' -f1
}

# r0_first_on ROLE: the first 4 KiB-aligned sample sector on member ROLE
r0_first_on() {
	for _s in $(r0_samples); do
		r0_map "$_s" && [ "$M_ROLE" = "$1" ] && { echo "$_s"; return 0; }
	done
	return 1
}

# ---- member errors -------------------------------------------------------------

# snap ROLE...: remember the md5 of the first sample block on each member
snap() {
	for _r in "$@"; do
		_s=$(r0_first_on "$_r") || return 1
		_m=$(r0_blk_sum "$_s") || return 1
		eval "SNAP_$_r=\"$_s $_m\""
		echo "member $_r: array sector $_s md5 $_m"
	done
}

# reads_fail ROLE: reading the snapped block of member ROLE fails
reads_fail() {
	eval "set -- \$SNAP_$1"
	if r0_blk_sum "$1"; then
		echo "read of array sector $1 succeeded"
		return 1
	fi
	echo "read of array sector $1 failed"
}

# reads_same ROLE...: the snapped blocks read back unchanged
reads_same() {
	for _r in "$@"; do
		eval "set -- \$SNAP_$_r"
		_m=$(r0_blk_sum "$1") || { echo "read of array sector $1 failed"; return 1; }
		echo "array sector $1: $_m"
		[ "$_m" = "$2" ] || return 1
	done
}

# writes_fail ROLE: writing the snapped block of member ROLE fails
writes_fail() {
	eval "set -- \$SNAP_$1"
	if dd if=/dev/zero of=$R0_MD bs=4k seek=$(($1 / 8)) count=1 oflag=direct \
		conv=notrunc 2>/dev/null; then
		echo "write of array sector $1 succeeded"
		return 1
	fi
	echo "write of array sector $1 failed"
}

array_state_is() {
	_st=$(cat /sys/block/md0/md/array_state)
	echo "array_state $_st"
	[ "$_st" = "$1" ]
}

# no_sync_action: md0 has no sync_action or mismatch_cnt file (no
# redundancy to check or repair), "check" cannot be written there and
# mdadm --action=check fails
no_sync_action() {
	for _f in sync_action mismatch_cnt; do
		if [ -e "/sys/block/md0/md/$_f" ]; then
			echo "md0 has $_f: $(cat "/sys/block/md0/md/$_f")"
			return 1
		fi
	done
	if echo check > /sys/block/md0/md/sync_action; then
		echo "writing check to sync_action succeeded"
		return 1
	fi
	if mdadm --action=check $R0_MD; then
		echo "mdadm --action=check succeeded"
		return 1
	fi
	echo "no sync_action, no mismatch_cnt; check refused"
}

# ---- 0.90 RAID0 superblocks ------------------------------------------------------

# r0_sb090_raid0 CHUNK_KIB DEV...: turn the 0.90 superblocks of a
# stopped, in-sync RAID1 over DEV... into a RAID0's with that chunk
# (level 0, no component size, layout 0, the chunk, checksum again).
# mdadm 4.2 makes no 0.90 RAID0 ("0.90 metadata does not support layouts
# for RAID0", whatever --layout says), yet arrays made by older mdadm
# have them and md runs them.  0.90 words: level 7, size 8, sb_csum 38,
# layout 64, chunk_size 65; the checksum is the 32-bit sum of the 4 KiB
# superblock's words (sb_csum 0) with the carries folded in.
r0_sb090_raid0() {
	_ck=$1
	shift
	for _d in "$@"; do
		_sb=$(( (($(blockdev --getsz "$_d") & ~127) - 128) * 512 ))
		if [ "$(get32 "$_d" $_sb)" != 2838187772 ]; then
			echo "$_d: no 0.90 superblock at byte $_sb"
			return 1
		fi
		put32 "$_d" $((_sb + 28)) 0 &&
		put32 "$_d" $((_sb + 32)) 0 &&
		put32 "$_d" $((_sb + 256)) 0 &&
		put32 "$_d" $((_sb + 260)) $((_ck * 1024)) &&
		put32 "$_d" $((_sb + 152)) 0 || return 1
		echo 3 > /proc/sys/vm/drop_caches
		_sum=$(dd if="$_d" bs=4096 skip=$((_sb / 4096)) count=1 2>/dev/null |
			od -An -v -tu4 | awk '{ for (i = 1; i <= NF; i++) s += $i }
			END { printf "%.0f\n", (s % 4294967296 + int(s / 4294967296)) % 4294967296 }')
		put32 "$_d" $((_sb + 152)) "$_sum" || return 1
	done
}

# r0_create090 CHUNK_KIB DEV...: a 0.90 RAID0 over DEV... (role order),
# made from a RAID1's superblocks (r0_sb090_raid0), not started
r0_create090() {
	_ck=$1
	shift
	# shellcheck disable=SC2086
	mdadm --create $R0_MD --run --level=1 --raid-devices=$# --metadata=0.90 \
		--assume-clean "$@" < /dev/null || return 1
	mdadm --stop $R0_MD || return 1
	r0_sb090_raid0 "$_ck" "$@"
}

# r0_fail_broken SLICE ROLE...: mdadm --fail of SLICE (a member) is
# refused (md has nothing to fail over to), yet md marks the array
# broken: array_state and --detail's State say so, the kernel log names
# the member; the snapped blocks of ROLE... still read back unchanged,
# writes fail, and mdadm --remove of the member is refused too.
r0_fail_broken() {
	_sl=$1
	shift
	_k=$(dm_kname "$_sl") || return 1
	r0_log_mark
	if mdadm $R0_MD --fail "/dev/mapper/$_sl"; then
		echo "mdadm --fail succeeded"
		return 1
	fi
	r0_log_since
	mdstat_array md0
	array_state_is broken || return 1
	_st=$(mdadm --detail $R0_MD | md_field State)
	echo "--detail State: $_st"
	[ "$_st" = broken ] || return 1
	# the wording is each implementation's; the line names the member and says it failed
	r0_log_since | grep -i "fail" | grep -q "$_k" || { echo "no line naming $_k as failed in the log"; return 1; }
	reads_same "$@" || return 1
	writes_fail "$1" || return 1
	if mdadm $R0_MD --remove "/dev/mapper/$_sl"; then
		echo "mdadm --remove succeeded"
		return 1
	fi
	mdstat_array md0 | grep -q "$_k\[" || { echo "$_k left md0"; return 1; }
}
