/*
 * AVL tree for EEVDF: see eevdf_tree.h. Recursive, because the depth is at
 * most 1.44·log2(n) and the augmented values are easiest to get right when
 * every node on the path is recomputed on the way back up.
 */
#include <stddef.h>

#include "bug.h"
#include "eevdf_tree.h"

static int height(const struct eevdf_entity *e)
{
    return e ? e->height : 0;
}

/* Folds the summary of e's child c (NULL: none) into e's own. */
static void fold_child(struct eevdf_entity *e, const struct eevdf_entity *c)
{
    if (!c)
        return;
    if (eevdf_vt_before(c->min_vruntime, e->min_vruntime))
        e->min_vruntime = c->min_vruntime;
    if (c->min_slice < e->min_slice)
        e->min_slice = c->min_slice;
    if (c->max_slice > e->max_slice)
        e->max_slice = c->max_slice;
}

void eevdf_tree_update(struct eevdf_entity *e)
{
    int hl = height(e->left), hr = height(e->right);

    e->height = 1 + (hl > hr ? hl : hr);
    e->min_vruntime = e->vruntime;
    e->min_slice = e->max_slice = e->slice;
    fold_child(e, e->left);
    fold_child(e, e->right);
}

/* A rotation's end: up, a child of n, has taken n's place. n's summary is
 * made again first, for it is now up's child, then up's; up is returned,
 * the subtree's new root. */
static struct eevdf_entity *raised(struct eevdf_entity *n, struct eevdf_entity *up)
{
    eevdf_tree_update(n);
    eevdf_tree_update(up);
    return up;
}

/* rotate_right and rotate_left are mirror images, kept as two: the children
 * are named fields, and each rotation reads as the picture it draws. */
static struct eevdf_entity *rotate_right(struct eevdf_entity *n)
{
    struct eevdf_entity *l = n->left;

    n->left = l->right;
    l->right = n;
    return raised(n, l);
}

static struct eevdf_entity *rotate_left(struct eevdf_entity *n)
{
    struct eevdf_entity *r = n->right;

    n->right = r->left;
    r->left = n;
    return raised(n, r);
}

/* n's children are balanced AVL trees whose heights differ by at most 2. */
static struct eevdf_entity *rebalance(struct eevdf_entity *n)
{
    eevdf_tree_update(n);
    int bf = height(n->left) - height(n->right);

    if (bf > 1) {
        if (height(n->left->left) < height(n->left->right))
            n->left = rotate_left(n->left);
        return rotate_right(n);
    }
    if (bf < -1) {
        if (height(n->right->right) < height(n->right->left))
            n->right = rotate_right(n->right);
        return rotate_left(n);
    }
    return n;
}

/* One step down for insert and remove_entity: step(child, e) on the side of
 * n that the key order sends e to (e below n, or to go there), the child
 * replaced by the subtree step returns, then n rebalanced. */
static struct eevdf_entity *descend(struct eevdf_entity *n, struct eevdf_entity *e,
                                    struct eevdf_entity *(*step)(struct eevdf_entity *n, struct eevdf_entity *e))
{
    if (eevdf_tree_before(e, n))
        n->left = step(n->left, e);
    else
        n->right = step(n->right, e);
    return rebalance(n);
}

static struct eevdf_entity *insert(struct eevdf_entity *n, struct eevdf_entity *e)
{
    if (!n) {
        e->left = e->right = NULL;
        eevdf_tree_update(e);
        return e;
    }
    return descend(n, e, insert);
}

void eevdf_tree_insert(struct eevdf_entity **root, struct eevdf_entity *e)
{
    *root = insert(*root, e);
}

static struct eevdf_entity *remove_first(struct eevdf_entity *n, struct eevdf_entity **first)
{
    if (!n->left) {
        *first = n;
        return n->right;
    }
    n->left = remove_first(n->left, first);
    return rebalance(n);
}

static struct eevdf_entity *remove_entity(struct eevdf_entity *n, struct eevdf_entity *e)
{
    BUG_ON(n == NULL); /* e is not in this tree, or its key changed while in it */
    if (n == e) {
        struct eevdf_entity *l = e->left, *r = e->right, *succ;

        e->left = e->right = NULL;
        if (!r)
            return l;
        r = remove_first(r, &succ);
        succ->left = l;
        succ->right = r;
        return rebalance(succ);
    }
    return descend(n, e, remove_entity);
}

void eevdf_tree_remove(struct eevdf_entity **root, struct eevdf_entity *e)
{
    *root = remove_entity(*root, e);
}
