/*
 * SPDX-License-Identifier: GPL-2.0
 *
 * Promela model of writes_pending (writes_pending.c) and md's clean
 * check around it.  NW writers on NCPU CPUs, one md thread (the closer)
 * on a CPU of its own, the superblock state, and a memory process that
 * drains store buffers whenever it likes.
 *
 * Weak memory: every CPU has a one-entry store buffer for its slot
 * (writes to one address from one CPU; a newer store overwrites the
 * buffered one, and since the drain may run between any two steps every
 * intermediate value can still become visible).  The closer's CPU
 * buffers its CLOSING store the same way.  A CPU reads its own buffer
 * first.  smp_mb() drains the buffer of the CPU executing it.  This is
 * TSO, the store-buffering pattern that A/B in writes_pending.c exist
 * for.  The gate stores that end a pass and the one in wp_open() are
 * made under a lock whose release publishes them, so they go straight
 * to memory.  The sum reads slots one at a time, interleaved with
 * everything else.
 *
 * Properties (assertions):
 *   inv1: when the md thread writes the clean superblock, no write is in
 *         flight or past its start decision (ghost counter "inflight");
 *   inv2: a write reaches a member only while the superblock says dirty
 *         and that superblock is durable.
 *
 * Broken variants (each must produce an assertion violation):
 *   NO_WRITER_FENCE      wp_start() without A
 *   NO_CLOSER_FENCE      wp_try_close() without B
 *   UNDO_OTHER_CPU       refused start undoes on another CPU
 *   SKIP_CPU             the sum misses the last CPU
 *   OPEN_BEFORE_DURABLE  md core reopens before the dirty sb is durable
 */

#define NCPU		2
#define NW		3
#define NWRITES		1	/* writes per writer */
#define MAXTRY		2	/* refusals per writer, keeps the space finite */

#define OPEN		0
#define CLOSING		1
#define CLOSED		2

#define SB_DIRTY	0	/* dirty and durable */
#define SB_CLEAN	1
#define SB_WRITING	2	/* dirty superblock being written */

short slot[NCPU];		/* memory */
bool sbuf_full[NCPU];		/* per-CPU store buffer */
short sbuf_val[NCPU];
byte gate = OPEN;		/* memory */
bool gbuf_full;			/* closer CPU: CLOSING store buffered */
byte sb = SB_DIRTY;
bool mdlock;			/* mddev lock, also wp->lock */
byte inflight;			/* ghost: admitted and not yet ended */

/* this_cpu_add(): one instruction, reads own buffer or memory. */
inline slot_add(c, d)
{
	atomic {
		if
		:: sbuf_full[c] -> sbuf_val[c] = sbuf_val[c] + d
		:: else -> sbuf_val[c] = slot[c] + d; sbuf_full[c] = true
		fi
	}
}

/* smp_mb() on CPU c: drain its store buffer. */
inline fence(c)
{
	atomic {
		if
		:: sbuf_full[c] -> slot[c] = sbuf_val[c]; sbuf_full[c] = false
		:: else -> skip
		fi
	}
}

inline lock()
{
	atomic { !mdlock -> mdlock = true }
}

active proctype memory()
{
end:	do
	:: atomic { sbuf_full[0] -> slot[0] = sbuf_val[0]; sbuf_full[0] = false }
	:: atomic { sbuf_full[1] -> slot[1] = sbuf_val[1]; sbuf_full[1] = false }
	:: atomic { gbuf_full -> gate = CLOSING; gbuf_full = false }
	od
}

/* The md thread: clean check, then the clean superblock write. */
active proctype closer()
{
	short sum;
	byte i;

end:	do
	:: lock();
		if
		:: gate == CLOSED -> skip
		:: else ->
			gbuf_full = true;		/* WRITE_ONCE(gate, CLOSING) */
#ifndef NO_CLOSER_FENCE
			atomic {			/* B */
				if
				:: gbuf_full -> gate = CLOSING; gbuf_full = false
				:: else -> skip
				fi
			}
#endif
			i = 0;
			do
#ifdef SKIP_CPU
			:: i < NCPU - 1 ->
#else
			:: i < NCPU ->
#endif
				atomic { sum = sum + slot[i]; i++ }
			:: else -> break
			od;
			if
			:: sum == 0 ->
				atomic { gbuf_full = false; gate = CLOSED };
				assert(inflight == 0);	/* inv1 */
				sb = SB_CLEAN
			:: else ->
				atomic { gbuf_full = false; gate = OPEN }
			fi;
			sum = 0;
			i = 0
		fi;
		mdlock = false
	od
}

proctype writer()
{
	byte c, g, n, tries;

	do
	:: n < NWRITES && tries < MAXTRY ->
		/* wp_start(): preemption off, so one CPU throughout */
		if
		:: c = 0
		:: c = 1
		fi;
		slot_add(c, 1);
#ifndef NO_WRITER_FENCE
		fence(c);				/* A */
#endif
		atomic {
			g = gate;
			if
			:: g == OPEN -> inflight++
			:: else -> skip
			fi
		}
		do					/* bounded spin */
		:: g == CLOSING ->
			if
			:: atomic {
				g = gate;
				if
				:: g == OPEN -> inflight++
				:: else -> skip
				fi
			   }
			:: g = CLOSED			/* spins used up */
			fi
		:: else -> break
		od;
		if
		:: g == OPEN ->
			assert(sb == SB_DIRTY);		/* inv2: member write */
			/* wp_end(), on any CPU */
			if
			:: c = 0
			:: c = 1
			fi;
			atomic { slot_add(c, -1); inflight-- };
			n++
		:: else ->
#ifdef UNDO_OTHER_CPU
			c = 1 - c;
#endif
			slot_add(c, -1);
			tries++;
			/* md_write_start() slow path */
			lock();
			fence(c);			/* the lock is a barrier */
			if
			:: gate == CLOSED ->
#ifdef OPEN_BEFORE_DURABLE
				gate = OPEN;
				sb = SB_WRITING;
				sb = SB_DIRTY
#else
				sb = SB_WRITING;
				sb = SB_DIRTY;		/* durable */
				gate = OPEN		/* wp_open() */
#endif
			:: else -> skip
			fi;
			mdlock = false
		fi;
		c = 0;
		g = 0
	:: else -> break
	od
}

init
{
	atomic {
		run writer();
		run writer();
		run writer()
	}
}
