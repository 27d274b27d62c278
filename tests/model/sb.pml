/*
 * SPDX-License-Identifier: GPL-2.0
 *
 * Promela model of the clean <-> dirty superblock round trip around
 * writes_pending: md_write_start()'s slow path, the md thread's clean
 * check and md_super_write_all() (md_core.c, md_super.c).  wp.pml proves
 * the counter's zero test exact under weak memory; here the counter is
 * abstract (one atomic step: admitted unless closed, and a close
 * succeeds only with nothing in flight), so the model can follow the
 * superblock writes themselves: a write is submitted, may land on the
 * medium at any later moment, and has landed when it completes.
 *
 * Properties:
 *   inv1: a clean superblock is only submitted with no write in flight;
 *   inv2: a write reaches a member only while the superblock on the
 *         medium says dirty and no "clean" is in flight to land on it;
 *   no deadlock: every writer finishes (spin's invalid end states).
 *
 * Broken variants (each must produce an error):
 *   DROP_AFTER_SEND  "dirty" is written while a submitted "clean" may
 *                    still land (the drop done too late)
 *   NO_RECHECK       md_super_write_all() lets waiters go after writing
 *                    "clean" although the array went dirty meanwhile
 */

#define NW		2
#define NWRITES		2	/* writes per writer */

#define SB_DIRTY	0
#define SB_CLEAN	1

bool closed = true;		/* counter gate; the array starts clean */
byte inflight;			/* admitted writes not yet ended */
bool in_sync = true;		/* mddev->in_sync */
bool pending;			/* MD_SB_CHANGE_PENDING */
bool change;			/* MD_SB_CHANGE_CLEAN: a write is wanted */
bool mdlock;			/* mddev->lock */
byte disk = SB_CLEAN;		/* superblock on the medium */
bool clean_sent;		/* a "clean" write submitted, not completed */
byte done;			/* writers finished */

inline lock()
{
	atomic { !mdlock -> mdlock = true }
}

/* The medium: a submitted "clean" lands whenever the device likes. */
active proctype device()
{
end:	do
	:: atomic { clean_sent && disk != SB_CLEAN -> disk = SB_CLEAN }
	od
}

/* md thread: clean check (timer) and superblock writes, one at a time. */
active proctype mdthread()
{
	bool st_clean, again;

end:	do
	:: done < NW ->
		/* md_clean_check(): wp_try_close() under mddev->lock */
		lock();
		if
		:: !in_sync && !pending ->
			/* wp_try_close(), atomic against wp_start() */
			atomic {
				if
				:: closed || inflight == 0 -> closed = true
				:: else -> skip	/* writes in flight */
				fi
			}
			if
			:: closed ->
				in_sync = true;
				change = true
			:: else -> skip
			fi
		:: else -> skip
		fi;
		mdlock = false
	:: change || pending ->
		/* md_super_write_all() */
repeat:
		change = false;
		lock();
		st_clean = in_sync;		/* sb_snapshot() */
		mdlock = false;
		if
		:: st_clean ->
			/* the flush phase: nothing of "clean" sent yet */
#ifndef DROP_AFTER_SEND
			if
			:: !in_sync -> goto repeat	/* racy read: drop */
			:: else -> skip
			fi;
#endif
			assert(inflight == 0);		/* inv1 */
			clean_sent = true;
#ifdef DROP_AFTER_SEND
			if
			:: !in_sync -> goto repeat	/* too late */
			:: else -> skip
			fi;
#endif
			/* completion: it has landed */
			atomic { disk = SB_CLEAN; clean_sent = false }
		:: else ->
			/* "dirty": submitted and completed (lands in between) */
			disk = SB_DIRTY
		fi;
		lock();
#ifdef NO_RECHECK
		again = false;
#else
		again = st_clean && !in_sync;
#endif
		if
		:: !again -> pending = false
		:: else -> skip
		fi;
		mdlock = false;
		if
		:: again -> goto repeat
		:: else -> skip
		fi
	od
}

proctype writer()
{
	byte n;
	bool admitted;

	do
	:: n < NWRITES ->
		/* wp_start() */
		atomic {
			if
			:: !closed -> inflight++; admitted = true
			:: else -> admitted = false
			fi
		}
		if
		:: admitted ->
			/* the member write, then wp_end() */
			assert(disk == SB_DIRTY && !clean_sent);	/* inv2 */
			inflight--;
			n++
		:: else ->
			/* md_write_start() slow path */
			lock();
			if
			:: in_sync ->
				in_sync = false;
				change = true;
				pending = true
			:: !in_sync && !pending ->
				closed = false		/* wp_open() */
			:: else -> skip
			fi;
			mdlock = false;
			!pending			/* wait_event(sb_wait) */
		fi
	:: else -> break
	od;
	done++
}

init
{
	atomic {
		run writer();
		run writer()
	}
}
