/*
 * TestPipeRing: bytes round a ring of tasks through pipes (sched/pipe.h).
 *
 * Two tasks per CPU, each pinned, task i reading pipe i-1 and writing
 * pipe i; tasks 2k and 2k+1 share a CPU, so half the hops wake a task on
 * the writer's own CPU (a handoff the policy decides) and half wake one
 * on another CPU (an IPI). Every pipe holds only 4 bytes and starts full,
 * so writers block as often as readers. Each task moves 1 to 3 bytes at a
 * time and now and then sleeps holding them; on every CPU but the boot
 * CPU a task keeps yielding, so queues are never empty.
 *
 * The ring is one FIFO conveyor: pipe j starts with bytes 4j..4j+3, so a
 * task sees each block in order, then the block of the pipe before: after
 * byte b comes b + 1, or, after the last of a block, the first of the
 * block before. Any lost, doubled or reordered byte breaks that. When the
 * test stops the ring, the bytes in the pipes and in the tasks' hands
 * must be all 4 x N of them. If nothing moves for 2 s it fails naming a
 * pipe that holds bytes and its reader's state (a lost wakeup).
 *
 * Build with BUG=pipe_lost_wakeup (one pipe wakeup in 500 forgotten) to
 * see it fail.
 */
#include "selftest.h"
#include "../arch/x86_64/clock.h"
#include "../arch/x86_64/cpu.h"
#include "../arch/x86_64/layout.h"
#include "../lib/printf.h"
#include "../sched/cpus.h"
#include "../sched/pipe.h"
#include "../sched/sched.h"

#define MOVES 20000u
#define STALL_NS (2 * NSEC_PER_SEC)
#define PIPE_BYTES 4u
#define MAX_RING 64u

struct member {
    struct task *task;
    unsigned idx;
    u32 held;   /* bytes read and not yet written */
    int last;   /* the last byte it saw; -1: none yet */
    bool bad;
    char what[64];
};

static struct member ring[MAX_RING];
static struct pipe pipes[MAX_RING];
static u8 bufs[MAX_RING][PIPE_BYTES];
static unsigned nring;
static volatile u32 moves;
static volatile bool done;
static int alive;
static struct selftest_yielder yielder = { &done, &alive };

/* The byte that must follow b on the conveyor. */
static unsigned after(unsigned b)
{
    unsigned m = PIPE_BYTES * nring;
    return b % PIPE_BYTES != PIPE_BYTES - 1 ? b + 1 : (b + m - (2 * PIPE_BYTES - 1)) % m;
}

static void member_main(void *arg)
{
    struct member *me = arg;
    struct pipe *in = &pipes[(me->idx + nring - 1) % nring], *out = &pipes[me->idx];
    u64 seed = 0x9e3779b97f4a7c15ull + me->idx;
    u8 hand[3];
    while (!done) {
        u32 want = 1 + (u32)(selftest_xorshift64(&seed) % 3);
        u32 got = pipe_read(in, hand, want, &done);
        me->held += got;
        for (u32 i = 0; i < got && !me->bad; i++) {
            if (me->last >= 0 && hand[i] != after((unsigned)me->last)) {
                me->bad = true;
                snprintf(me->what, sizeof me->what, "got byte %u after %d, want %u", hand[i], me->last,
                         after((unsigned)me->last));
            }
            me->last = hand[i];
        }
        if (!got)
            break;
        if (selftest_xorshift64(&seed) % 32 == 0)
            task_sleep_ns(selftest_xorshift64(&seed) % (50 * NSEC_PER_USEC));
        me->held -= pipe_write(out, hand, got, &done);
        __atomic_add_fetch(&moves, got, __ATOMIC_RELAXED);
    }
    __atomic_sub_fetch(&alive, 1, __ATOMIC_SEQ_CST);
}

bool test_pipe_ring(char *why, size_t size)
{
    done = false;
    moves = 0;
    alive = 0;
    nring = 2 * ncpus < MAX_RING ? 2 * ncpus : MAX_RING;
    for (unsigned i = 0; i < nring; i++) {
        pipe_init(&pipes[i], bufs[i], PIPE_BYTES);
        u8 block[PIPE_BYTES];
        for (unsigned b = 0; b < PIPE_BYTES; b++)
            block[b] = (u8)(PIPE_BYTES * i + b);
        pipe_write(&pipes[i], block, PIPE_BYTES, NULL); /* empty: never blocks */
    }
    for (unsigned i = 0; i < nring; i++) {
        struct member *m = &ring[i];
        *m = (struct member){ .idx = i, .last = -1 };
        char name[16];
        snprintf(name, sizeof name, "pipe/%u", i);
        __atomic_add_fetch(&alive, 1, __ATOMIC_SEQ_CST);
        m->task = task_create(name, member_main, m, (int)(i / 2 % ncpus), 0);
    }
    for (unsigned c = 1; c < ncpus; c++) {
        __atomic_add_fetch(&alive, 1, __ATOMIC_SEQ_CST);
        task_create("yielder", selftest_yielder_main, &yielder, (int)c, 0);
    }

    u64 start = clock_ns(), last_move = start;
    u32 last = 0;
    bool ok = true;
    while (moves < MOVES && ok) {
        task_sleep_ns(10 * NSEC_PER_MSEC);
        u64 now = clock_ns();
        for (unsigned i = 0; i < nring; i++)
            if (ring[i].bad) {
                snprintf(why, size, "%s %s", ring[i].task->name, ring[i].what);
                ok = false;
            }
        if (moves != last) {
            last = moves;
            last_move = now;
        } else if (ok && now - last_move > STALL_NS) {
            snprintf(why, size, "the ring stopped after %u bytes moved", last);
            for (unsigned i = 0; i < nring; i++) {
                struct task *reader = ring[(i + 1) % nring].task;
                if (pipes[i].count) {
                    snprintf(why, size, "the ring stopped after %u bytes moved: pipe %u holds %u bytes, its reader %s is %s",
                             last, i, pipes[i].count, reader->name, run_state_name(reader->state));
                    break;
                }
            }
            ok = false;
        }
    }
    u64 took = clock_ns() - start;
    done = true;
    bool stopped = true;
    u64 give_up = clock_ns() + STALL_NS;
    while (__atomic_load_n(&alive, __ATOMIC_SEQ_CST)) {
        for (unsigned i = 0; i < nring; i++)
            task_wake(ring[i].task);
        if (clock_ns() > give_up) {
            stopped = false;
            break;
        }
        task_sleep_ns(NSEC_PER_MSEC);
    }
    if (ok && !stopped) {
        snprintf(why, size, "%d tasks did not stop", __atomic_load_n(&alive, __ATOMIC_SEQ_CST));
        ok = false;
    }
    if (ok) {
        u32 total = 0;
        for (unsigned i = 0; i < nring; i++)
            total += pipes[i].count + ring[i].held;
        if (total != PIPE_BYTES * nring) {
            snprintf(why, size, "%u bytes in the ring at the end, want %u", total, PIPE_BYTES * nring);
            ok = false;
        }
    }
    if (ok)
        kprintf("  TestPipeRing: %u bytes moved round %u tasks on %u cpus in %lu ms\n", moves, nring, ncpus,
                took / NSEC_PER_MSEC);
    return ok;
}
