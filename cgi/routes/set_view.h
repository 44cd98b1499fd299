/*
 * set_view.h - what the set routes share: finding a set the user may see,
 * turning a set into the API's JSON (tubercles, edges, statistics with the
 * original's field names, µm derived from the image's calibration), and
 * answering a change with its new revision, what changed and the
 * recomputed statistics (or 409 with the current revision).
 */
#ifndef FS_SET_VIEW_H
#define FS_SET_VIEW_H

#include "app/http.h"
#include "store/store.h"
#include "analysis/analysis.h"

typedef struct fs_set_ctx {
	fs_set_info info;
	fs_image_rec image;
} fs_set_ctx;

/* Loads set r->ids[idx] and checks the user may see its image. Returns 0, or
 * writes the error response (404 for unknown or invisible) and returns 1. */
int fs_set_ctx_load(fs_req *r, fs_resp *w, long long set_id, fs_set_ctx *c);

/* Sets info's can_undo / can_redo to the requesting user's own stacks. */
int fs_set_view_user_stacks(fs_req *r, fs_set_info *info);

/* Hexagonalness weights: the user's settings, overridden by query
 * parameters spacing_weight / degree_weight / edge_ratio_weight. */
void fs_set_view_weights(fs_req *r, fs_hex_weights *wts);

/* Statistics JSON of a loaded set (caller deletes). */
cJSON *fs_set_view_stats(const fs_set_ctx *c, const fs_tubercle_list *t, const fs_edge_list *e,
			 const fs_hex_weights *wts, fs_stats *out_stats);
/* {id, image_id, name, revision, clean_revision, dirty, ..., can_undo,
 * can_redo} (as info has them: fs_set_view_user_stacks first) */
cJSON *fs_set_view_info(const fs_set_info *s);
cJSON *fs_set_view_tubercle(const fs_tubercle *t, double um);
cJSON *fs_set_view_edge(const fs_tubercle_list *t, const fs_edge *e, double um);
/*
 * The whole set, {success, set, image, tubercles, edges, statistics} (the
 * arrays as rows, or ?layout=columns one array per field), written to a
 * sink a row at a time (GET /api/sets/{id} streams it: a 70,000-tubercle
 * set's answer is not held whole). fs_set_view_prepare makes what may fail
 * or take long first (the head's objects and the statistics, as text;
 * NULL when out of memory); fs_set_view_write then writes the answer
 * (0, or -1 when out of memory or the sink's reader is gone).
 */
typedef struct fs_set_view_whole {
	char *head;       /* {"success":true,"set":{...},"image":{...}} (owned) */
	char *statistics; /* the statistics object, or NULL when they failed (owned) */
} fs_set_view_whole;
fs_set_view_whole fs_set_view_prepare(fs_req *r, const fs_set_ctx *c, const fs_tubercle_list *t,
				      const fs_edge_list *e);
void fs_set_view_whole_free(fs_set_view_whole *v);
int fs_set_view_write(fs_req *r, const fs_set_ctx *c, const fs_tubercle_list *t, const fs_edge_list *e,
		      const fs_set_view_whole *v, fs_sink *out);

/*
 * Responds to a change: rc from a sets_store call. OK -> 200 {success,
 * revision, changed, statistics}; STALE -> 409 {success: false, error,
 * revision}; INVALID -> 422; others mapped. extra (may be NULL) is merged
 * into a success response (ownership taken).
 */
int fs_set_view_change(fs_req *r, fs_resp *w, long long set_id, int rc, long long new_rev, long long cur_rev,
		       const char *err, cJSON *extra);

/* The "revision" field of the body (or ?revision=); -1 and a 400 response when missing. */
int fs_set_view_revision(fs_req *r, fs_resp *w, long long *rev);

#endif
