/* extraction_result.c - an extraction's result into a set, history and log (see extraction_result.h). */
#include "store/extraction_result.h"

#include <stdio.h>
#include <string.h>

#include "analysis/params_json.h"
#include "store/eventlog.h"
#include "store/sets_store.h"
#include "store/settings_store.h"

int fs_extraction_store(fs_db *db, const fs_image_rec *image, long long set_id, long long expect_rev,
			long long user_id, const fs_params *p, const fs_tubercle_list *t, const fs_edge_list *e,
			fs_stats *stats, long long *new_rev, long long *cur_rev, char *err, size_t errlen)
{
	double um = image->um_per_px > 0 ? image->um_per_px : 0;
	fs_hex_weights wts;
	fs_stats s;
	fs_db_phase(db, "statistics");
	fs_settings_hex_weights(db, user_id, &wts);
	/* the statistics of what is stored; computed before the write so the
	 * write lock is not held for them */
	if (fs_stats_compute(t, e, um > 0 ? um : 1, &wts, image->width, image->height, &s)) {
		snprintf(err, errlen, "out of memory computing statistics");
		return FS_DB_ERROR;
	}
	int rc;
	for (int attempt = 0;; attempt++) {
		long long rev = expect_rev;
		if (rev <= 0 && (rc = fs_set_revision(db, set_id, &rev)))
			return rc;
		rc = fs_set_replace_all(db, set_id, rev, user_id, t, e, p, "extraction", 0, new_rev, cur_rev, err,
					errlen);
		/* "on top of whatever is there": an edit that slipped in between
		 * reading the revision and writing is no conflict */
		if (rc != FS_DB_STALE || expect_rev > 0 || attempt == 2)
			break;
	}
	if (rc)
		return rc;
	if (stats)
		*stats = s;
	fs_db_phase(db, "history");
	cJSON *h = cJSON_CreateObject();
	cJSON_AddStringToObject(h, "method", fs_method_name(p->method));
	cJSON_AddNumberToObject(h, "n_tubercles", (double)t->n);
	cJSON_AddNumberToObject(h, "n_edges", (double)e->n);
	cJSON_AddItemToObject(h, "parameters", fs_params_to_json(p));
	if (um > 0)
		cJSON_AddNumberToObject(h, "calibration_um_per_pixel", um);
	else
		cJSON_AddNullToObject(h, "calibration_um_per_pixel");
	cJSON_AddNumberToObject(h, "hexagonalness", s.hexagonalness_score);
	fs_history_add(db, set_id, user_id, "extraction", h);
	cJSON_Delete(h);
	cJSON *d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "n_tubercles", (double)t->n);
	cJSON_AddNumberToObject(d, "n_edges", (double)e->n);
	cJSON_AddStringToObject(d, "method", fs_method_name(p->method));
	cJSON_AddNumberToObject(d, "hexagonalness_score", s.hexagonalness_score);
	cJSON_AddStringToObject(d, "reliability", s.reliability ? s.reliability : "none");
	cJSON_AddNumberToObject(d, "set_id", (double)set_id);
	fs_event_log(db, user_id, image->id, "extraction_complete", d);
	cJSON_Delete(d);
	return FS_DB_OK;
}
