/*
 * store.h - the store subsystem's public face: the server's state in SQLite and the data directory: the database and its
 * migrations, users, sessions and passwords, images and their files,
 * annotation sets with their journal and history, settings and profiles,
 * the event log, agent runs, saved comparisons, and the annotation JSON and
 * CSV formats.
 *
 * Callers outside lib/store/ include this header; each module's own header
 * says what it does and who owns each pointer.
 */
#ifndef FS_STORE_H
#define FS_STORE_H

#include "store/db.h"
#include "store/db_bind.h"
#include "store/users.h"
#include "store/sessions.h"
#include "store/password.h"
#include "store/images_store.h"
#include "store/image_files.h"
#include "store/work_file.h"
#include "store/pyramid.h"
#include "store/set_packed.h"
#include "store/staged_blob.h"
#include "store/image_steps.h"
#include "store/sets_store.h"
#include "store/set_diff.h"
#include "store/settings_store.h"
#include "store/eventlog.h"
#include "store/agent_runs.h"
#include "store/annotation.h"
#include "store/annotation_json.h"
#include "store/export_csv.h"
#include "store/disk_usage.h"
#include "store/extraction_result.h"
#include "store/jobs.h"
#include "store/compare_csv.h"
#include "store/comparisons.h"
#include "store/image_databar.h"
#include "store/scale_regions.h"

#endif
