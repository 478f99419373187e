/*
 * The EEVDF run tree: an AVL tree of struct eevdf_entity ordered by
 * (deadline, seq), each node caching the smallest vruntime, the smallest
 * slice and the largest slice in its subtree. The cached vruntime is what
 * lets the pick find the earliest deadline among *eligible* entities in
 * O(log n): a subtree whose smallest vruntime is not eligible holds no
 * eligible entity. The root's slices are the queue's shortest and longest
 * request but current's: RUN_TO_PARITY protects for the shortest, and
 * LAG_CLAMP_MAX_SLICE clamps a leaving entity's lag by the longest.
 *
 * The caller owns the keys: an entity's deadline, seq, vruntime and slice
 * must not change while it is in the tree (remove, change, insert).
 */
#ifndef RUNQ_SCHED_EEVDF_TREE_H
#define RUNQ_SCHED_EEVDF_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include "eevdf.h"

/* a runs before b: earlier deadline, or the same one and inserted first. */
static inline bool eevdf_tree_before(const struct eevdf_entity *a, const struct eevdf_entity *b)
{
    int64_t d = (int64_t)(a->deadline - b->deadline);
    if (d != 0)
        return d < 0;
    return a->seq < b->seq;
}

/* Wrap-safe "a is earlier than b" for virtual times. */
static inline bool eevdf_vt_before(uint64_t a, uint64_t b)
{
    return (int64_t)(a - b) < 0;
}

/* e (not in any tree, seq already set) goes into the tree at *root. */
void eevdf_tree_insert(struct eevdf_entity **root, struct eevdf_entity *e);
/* e, which must be in the tree at *root, comes out. */
void eevdf_tree_remove(struct eevdf_entity **root, struct eevdf_entity *e);
/* Recompute e's cached height, minima and maximum from its children. */
void eevdf_tree_update(struct eevdf_entity *e);

#endif
