#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 600
# SLOW: RAID5/6 --grow --size both ways, about 35 s per implementation (TCG); mdadm's 02r5grow and 02r6grow cover the same requests
#
# The component size of a running RAID5 and RAID6 changes in place
# (mdadm's 02r6grow): rows are numbered by member sector, so adding
# rows at the end moves no data.  `--grow --size max` grows the array
# to what every member allows and resyncs the added rows (a member holds
# other bytes there beforehand: a check afterwards finds no mismatch
# only if they were resynced), the data below stays intact and the new
# part takes verified writes; md/component_size rounds a size down to
# whole chunks, refuses one no member has room for (ENOSPC) or garbage
# (EINVAL) and changes nothing then; `--grow --size N` shrinks without a
# sync; the size is in the superblocks across stop/assemble.  Once more
# on RAID5 with an internal bitmap that has gone clean: the grown rows
# are still resynced here; in-tree md skips them (its bitmap resize
# marks only the chunks it adds, and these rows lie in one it had), so
# its check finds them out of sync, asserted as such.
. /harness/lib.sh
. /harness/tests/raid5/common.sh

MD=/dev/md0
SYS=/sys/block/md0/md
HALF=32768	# KiB per member
NOTCHUNK=40010	# KiB: 40000 is the 64 KiB multiple below it

# the last member differs from the others past 40 MiB (outside the
# half-size array): only a resync of the grown rows makes parity agree
brd_scribbled() { # N
	brd_setup "$1" 65536 &&
	dd if=/dev/urandom of="/dev/ram$(($1 - 1))" bs=1M seek=40 count=16 \
		oflag=direct 2>/dev/null
}

grown_to_max() { # data members
	md_grow_max 300 || return 1
	[ "$GROWN_KIB" -gt $((HALF + 16384)) ] && [ $((GROWN_KIB % 64)) = 0 ] &&
	[ "$(blockdev --getsize64 $MD)" = $((GROWN_KIB * 1024 * $1)) ]
}

# fio verify in the grown part: from the old end of the array
grown_part_verifies() { # data members
	(cd /tmp && fio --name=grown --filename=$MD --rw=randwrite --bs=16k \
		--ioengine=libaio --iodepth=16 --direct=1 \
		--offset=$((HALF * 1024 * $1)) --size=8M --verify=crc32c \
		--verify_fatal=1 --do_verify=1 --randrepeat=1 --randseed=86 \
		--verify_state_save=0 --eta=never) > /tmp/fio.out 2>&1
	fio_log_ok $?
}

rounds_to_chunks() { # data members
	echo $NOTCHUNK > $SYS/component_size || return 1
	sleep 1
	wait_resync md0 300 || return 1
	md_size_is 40000 "$1"
}

# shellcheck disable=SC2046
create_half() { # LEVEL N [MDADM-ARGS...]
	_l=$1 _n=$2
	shift 2
	mdadm --create $MD --run --level="$_l" --raid-devices="$_n" --chunk=64 \
		--metadata=1.2 --size=$HALF "$@" $(r5_members "$_n") &&
		wait_resync md0 300
}

stopped_records() { mdadm --stop $MD && examine_used_size /dev/ram0 $HALF; }
# shellcheck disable=SC2046
assembled_intact() { # N data
	mdadm --assemble $MD $(r5_members "$1") && md_size_is $HALF "$2" && md_pattern_intact
}

# grow_case LEVEL MEMBERS [bitmap]
# With "bitmap": an internal bitmap of 64 MiB chunks, which covers the
# grown size with the chunk it already has, and which is left to go
# clean before the grow: the resync of the grown rows must not take that
# clean bit for "in sync" (a resync skips clean chunks).
grow_case() {
	gc_l=$1 gc_n=$2 gc_b=${3:-}
	gc_d=$((gc_n - 1))
	[ "$gc_l" = 6 ] && gc_d=$((gc_n - 2))
	gc_w="raid$gc_l, $gc_n members${gc_b:+, bitmap}"
	ktap_check "$gc_w: brd, the last member differs past 40 MiB" \
		brd_scribbled $gc_n
	if [ -n "$gc_b" ]; then
		ktap_check "$gc_w: --size $HALF KiB, initial sync" create_half \
			$gc_l $gc_n --bitmap=internal --bitmap-chunk=64M
	else
		ktap_check "$gc_w: --size $HALF KiB, initial sync" create_half \
			$gc_l $gc_n
	fi
	ktap_check "$gc_w: md0 is $HALF KiB per member" md_size_is $HALF $gc_d
	ktap_check "$gc_w: 8 MiB pattern written" md_pattern_write
	[ -n "$gc_b" ] &&
		ktap_check "$gc_w: the bitmap goes clean" \
			wait_bitmap_dirty 0 /dev/ram0
	ktap_check "$gc_w: component_size beyond the members: ENOSPC, unchanged" \
		sysfs_expect_errno 28 $SYS/component_size 1048576
	ktap_check "$gc_w: component_size garbage: EINVAL, unchanged" \
		sysfs_expect_errno 22 $SYS/component_size 12x
	ktap_check "$gc_w: component_size $NOTCHUNK: 40000, whole chunks" \
		rounds_to_chunks $gc_d
	ktap_check "$gc_w: --grow --size max: grown and resynced" grown_to_max $gc_d
	if [ -n "$gc_b" ] && [ "$IMPL" = intree ]; then
		# in-tree marks only chunks it adds as needing a resync, and
		# the grown rows lie in a chunk it had: its resync skipped them
		ktap_check "$gc_w: intree: check finds the grown rows out of sync" \
			sh -c '. /harness/lib.sh; ! md_check_clean md0 300'
	else
		ktap_check "$gc_w: check finds the grown rows in sync" \
			md_check_clean md0 300
	fi
	ktap_check "$gc_w: data intact" md_pattern_intact
	ktap_check "$gc_w: writes to the grown part verify" grown_part_verifies $gc_d
	ktap_check "$gc_w: --grow --size $HALF: no sync" md_shrink_no_sync $HALF
	ktap_check "$gc_w: md0 is $HALF KiB per member again" md_size_is $HALF $gc_d
	ktap_check "$gc_w: stop; ram0 records $HALF KiB" stopped_records
	ktap_check "$gc_w: assemble: $HALF KiB, data intact" \
		assembled_intact $gc_n $gc_d
	brd_teardown
}

ktap_plan 46
grow_case 5 4
grow_case 6 5
grow_case 5 4 bitmap
ktap_finish
