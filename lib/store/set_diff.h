/*
 * set_diff.h - one change of an annotation set (fs_set_diff) and what is
 * done with changes without the database: their journal form (JSON),
 * inversion, fitting a change to the set as it is now (the rule for
 * undoing one step), and folding a run of changes into their net effect
 * (Save's summary, Revert).
 *
 * Tubercles are compared bit for bit: a step applies while the tubercles
 * it touched are as it left them. Connections are looser: a connection
 * that is already gone need not be removed again, one whose end is gone
 * cannot come back, and removing a tubercle takes every connection it has
 * now along (fs_set_diff_fit).
 *
 * Ownership: every list in a diff belongs to the diff (fs_set_diff_free);
 * a state's lists belong to the state (fs_set_state_free).
 */
#ifndef FS_SET_DIFF_H
#define FS_SET_DIFF_H

#include <stddef.h>

#include <cJSON.h>

#include "analysis/params.h"
#include "base/buf.h"
#include "image/tubercle.h"

/* A change: the tubercles and edges it adds, removes and modifies. */
typedef struct fs_set_diff {
	fs_tubercle_list added;
	fs_tubercle_list removed;
	fs_tubercle_list before; /* modified tubercles as they were ... */
	fs_tubercle_list after;  /* ... and as they become (same order) */
	fs_edge_list edges_added;
	fs_edge_list edges_removed;
	int params_changed;
	int had_params, has_params;
	fs_params params_before, params_after;
	int replaces_all; /* an extraction, optimiser step or import: the whole set replaced */
	/* the set's measurement version (analysis/measurement.h) before and
	 * after: an extraction or a Re-measure sets it, its undo restores it */
	int version_changed;
	int version_before, version_after;
} fs_set_diff;

void fs_set_diff_free(fs_set_diff *d);
int fs_set_diff_copy(fs_set_diff *dst, const fs_set_diff *src);
/* The journal's form: numbers printed so that they read back bit for bit. */
cJSON *fs_set_diff_to_json(const fs_set_diff *d);
/* The same journal text as cJSON_PrintUnformatted(fs_set_diff_to_json(d)),
 * byte for byte, appended to out without building the tree (about ten
 * times faster for a large step). 0, or -1 out of memory (out then holds
 * part of it: the caller drops it). */
int fs_set_diff_to_text(const fs_set_diff *d, fs_buf *out);
int fs_set_diff_from_json(const char *s, fs_set_diff *d);
/* The inverse: what is added is removed, before and after swap. */
void fs_set_diff_invert(fs_set_diff *d);
/* 1 when the diff changes nothing. */
int fs_set_diff_empty(const fs_set_diff *d);

/* Two tubercles identical to the last bit (id, position, size, shape,
 * source, fit quality); two NaN radii are the same. */
int fs_tubercle_same(const fs_tubercle *a, const fs_tubercle *b);
/* Ids positive, position finite, radius positive or NaN (unmeasured), fit
 * quality in 0..1 or NaN: may be stored. */
int fs_tubercle_storable(const fs_tubercle *t);

/* Edges with id1 < id2, sorted, each once. */
void fs_edges_normalise(fs_edge_list *l);

/* A set's rows in memory: tubercles sorted by id, edges normalised. */
typedef struct fs_set_state {
	fs_tubercle_list t;
	fs_edge_list e;
} fs_set_state;

void fs_set_state_free(fs_set_state *s);
const fs_tubercle *fs_set_state_find(const fs_set_state *s, int id);
int fs_set_state_has_edge(const fs_set_state *s, int id1, int id2);

/*
 * Fits d, a change about to be applied (an undo's inverse, a redo), to
 * the set as it is now: every tubercle d removes or modifies must be as d
 * says, and every id d adds must be free (else -1 with the reason in why,
 * e.g. "tubercle #12 no longer exists"). Connections are fitted: those d
 * removes that are already gone are dropped, every connection the set has
 * now to a tubercle d removes is added to the removals, and those d adds
 * that exist already or whose end will not exist are dropped. A change left
 * with nothing to do is refused too (the first dropped connection is the
 * reason). Returns 0 when d (as changed) applies.
 */
int fs_set_diff_fit(const fs_set_state *now, fs_set_diff *d, char *why, size_t whylen);
/* Whether the tubercle a step touched is still as the step left it (was):
 * cur is the one with that id now, NULL when there is none. 0, or -1 with
 * the reason in why ("tubercle #4 no longer exists", "tubercle #4 has
 * changed since"): the check of fs_set_diff_fit and of its rows form
 * fs_rows_diff_applies. */
int fs_set_diff_still(const fs_tubercle *cur, const fs_tubercle *was, char *why, size_t whylen);

/*
 * Net effect of a run of changes, applied in order: per tubercle id, how
 * it was before the first change that touched it and after the last; per
 * connection, whether it existed before and after.
 */
typedef struct fs_set_net fs_set_net;

fs_set_net *fs_set_net_new(void);
void fs_set_net_free(fs_set_net *n);
int fs_set_net_add(fs_set_net *n, const fs_set_diff *d);

typedef struct fs_set_net_counts {
	int added, deleted, moved, resized; /* tubercles, by id */
	int edges_added, edges_deleted;
} fs_set_net_counts;

void fs_set_net_count(const fs_set_net *n, fs_set_net_counts *c);
/* The one change from the state before the run to the state after it. */
int fs_set_net_diff(const fs_set_net *n, fs_set_diff *out);

#endif
