/*
 * main_databar.c - `fishscale-databar --run IMAGE_ID --root ROOT`: reads the
 * SEM data bar of one image after its upload, as its own detached process
 * (cgi/app/worker_spawn.h), so that Tesseract never runs in a request. The
 * upload marks the image 'pending' (store/image_databar.h) and starts this;
 * it reads the uploaded image (the base of the transform steps, so a crop
 * made meanwhile does not hide the bar), stores the suggestion, and when
 * the owner's setting auto_calibrate_data_bar is on, applies it to an
 * image still uncalibrated if it may be applied without a person
 * (confident, pitch in the published range, and within 2 % of the file
 * metadata's pixel size when the file has one), in the same transaction
 * as the suggestion (app/databar_store.h says why).
 *
 * At most jobs_max_running readers read at once (worker_slots.h); the
 * others wait for a slot before loading anything.
 *
 * Exit status 0 stored (found or not), 1 failed (the row says why), 2 usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "analysis/analysis.h"
#include "app/app.h"
#include "app/databar_store.h"
#include "app/job_control.h"
#include "app/worker_slots.h"
#include "app/worker_spawn.h"
#include "base/base.h"
#include "image/image.h"
#include "store/store.h"

/* How long a reader waits for a slot before it gives up (the image's
 * reading is then failed, and can be asked for again). */
#define DATABAR_WAIT_MS (10L * 60 * 1000)

int main(int argc, char **argv)
{
	fs_app app;
	char err[512] = "";
	long long id;
	const char *root;
	fs_app_umask(); /* before anything is created: see app.h */
	if (fs_worker_parse_args(argc, argv, &id, &root)) {
		fprintf(stderr, "usage: fishscale-databar --run IMAGE_ID --root DIR\n");
		return 2;
	}
	setpriority(PRIO_PROCESS, 0, 10);
	if (fs_app_config(&app, root, NULL, err, sizeof err)) {
		fprintf(stderr, "fishscale-databar %lld: %s\n", id, err);
		return 1;
	}
	/* a burst of uploads starts one reader each: only as many as heavy
	 * jobs may run at once (jobs_max_running) read, the others wait here,
	 * before anything is loaded, for a slot (worker_slots.h) */
	fs_job_limits lim;
	fs_job_limits_from_config(&app.cfg, &lim);
	char jobs_dir[1200];
	fs_app_data_path(&app, "jobs", jobs_dir, sizeof jobs_dir);
	char slot_err[256] = "";
	int slot = fs_worker_slot_take(jobs_dir, "databar-slot", lim.max_running, DATABAR_WAIT_MS, slot_err,
				       sizeof slot_err);
	if (fs_app_open(&app, 0, err, sizeof err)) {
		fprintf(stderr, "fishscale-databar %lld: %s\n", id, err);
		return 1;
	}
	if (slot < 0) {
		fs_image_databar_failed(app.db, id, slot_err);
		fprintf(stderr, "fishscale-databar %lld: %s\n", id, slot_err);
		fs_app_close(&app);
		return 1;
	}
	int exit_code = 1;
	fs_image_rec rec;
	if (fs_image_get(app.db, id, &rec)) {
		fprintf(stderr, "fishscale-databar %lld: no such image\n", id);
		goto out;
	}
	fs_image_rec base = rec;
	if (base.base_key[0])
		snprintf(base.work_key, sizeof base.work_key, "%s", base.base_key);
	/* compact (image.h): the finder, the reading and the pitch check read
	 * either storage with the same result, and a 100 MP 8-bit image then
	 * costs this reader 100 MB instead of 400 MB (and its crop for the
	 * pitch check 1 byte a pixel instead of 4) */
	fs_image *img = fs_image_load_work_compact(app.cfg.data_dir, &base, err, sizeof err);
	fs_databar_suggestion s;
	int rc = img ? fs_databar_suggest(img, &s, err, sizeof err) : -1;
	fs_image_free(img);
	fs_databar_ocr_shutdown();
	if (rc) {
		fs_image_databar_failed(app.db, id, err);
		fprintf(stderr, "fishscale-databar %lld: %s\n", id, err);
		goto out;
	}
	/* the reading and the calibration it brings in one transaction (databar_store.h) */
	int applied = 0;
	rc = fs_databar_store_reading(app.db, &rec, &s, &applied, err, sizeof err);
	if (rc < 0) {
		fprintf(stderr, "fishscale-databar %lld: cannot store the result: %s\n", id, err);
		goto out;
	}
	if (rc > 0)
		fprintf(stderr, "fishscale-databar %lld: cannot apply the calibration: %s\n", id, err);
	exit_code = 0;
out:
	fs_app_close(&app);
	return exit_code;
}
