/*
 * agent_fish_tools.h - the state of one agent run on an annotation set and
 * the tools both fish-scale agents offer the model.
 *
 * One fs_agent_sess holds what the tools, the offline policies and the
 * status writer share: the set (cached from SQLite, reloaded after each
 * change so the status and the model always see the stored truth), the
 * working image, the optimiser's trials, the editing agent's counters, the
 * usage of the model, and the reason a run must stop (a tool or the
 * iteration bookkeeping sets it; the loop's cancel hook then ends the run).
 *
 * Editing tools take coordinates in the pixels of the latest screenshot
 * (scale = screenshot px per image px, 1 before any screenshot) and store
 * image pixels; results give both.
 *
 * The run functions below are the per-kind drivers behind
 * fs_agent_job_run (agent_jobs.h).
 *
 * Ownership: the session owns img, t, e, trials and best lists and the
 * status strings; job, env and db are borrowed. fs_agent_sess_free
 * releases what the session owns (tolerates a zeroed struct).
 */
#ifndef FS_AGENT_FISH_TOOLS_H
#define FS_AGENT_FISH_TOOLS_H

#include <stddef.h>

#include <cJSON.h>

#include "agent/agent_jobs.h"
#include "agent/agent_loop.h"
#include "agent/agent_screenshot.h"
#include "image/image.h"
#include "store/images_store.h"
#include "analysis/metrics.h"
#include "analysis/params.h"
#include "agent/prices.h"
#include "analysis/blur_tiles.h"
#include "image/tubercle.h"
#include "analysis/scale_region.h"

#define FS_AGENT_LOG_KEEP 50     /* log lines kept in the status */
#define FS_AGENT_SHOT_SIDE 1024  /* longest screenshot side given to the model */
#define FS_AGENT_MIN_COUNT 10
#define FS_AGENT_HEX_TIE 0.005   /* hexagonalness differences below this are ties */    /* fewer tubercles never make the optimiser's best */

typedef struct fs_agent_trial {
	int iteration;
	int implausible;         /* never "best": see rejected */
	char rejected[160];      /* why the result is implausible */
	fs_params params;
	fs_stats stats;
	double seconds;          /* detection + graph + statistics */
	double at_elapsed;       /* seconds since the start of the run */
	char phase[32];
} fs_agent_trial;

typedef struct fs_agent_sess {
	const fs_agent_job *job;  /* borrowed */
	fs_agent_env *env;        /* borrowed */
	fs_db *db;                /* borrowed (env->db) */
	fs_image_rec rec;
	fs_image *img;            /* working image: compact (image.h) when its file is 8 or 16 bits */
	fs_scale_region region;   /* its scale region (scale_regions.h): nothing is added outside it */
	double um_per_px;         /* the image's calibration, 0 = none */
	double um_for_detect;     /* calibration used for µm parameters */

	/* the set as stored */
	fs_tubercle_list t;
	fs_edge_list e;
	long long revision;
	fs_stats stats;

	/* optimiser */
	fs_params params;         /* current parameters */
	fs_agent_trial *trials;
	size_t n_trials, cap_trials;
	int best;                 /* index into trials, -1 none */
	fs_tubercle_list best_t;  /* the best extraction, applied at the end */
	fs_edge_list best_e;
	int applied;              /* index of the trial now in the set, -1 none */
	int no_improve;           /* extractions since the last improvement */
	int own_plateau;          /* the policy decides when the search has stalled (the local
				   * compass search: a whole pass without improvement), so the
				   * count of extractions without improvement does not stop it */
	int profile_phase;        /* 1 until the first set_params */
	double lattice_pitch;     /* the image's lattice (px), 0 none, -1 not yet estimated */
	int accepted;

	/* the start, kept so a run never ends below it (both agents) */
	fs_tubercle_list start_t;
	fs_edge_list start_e;
	fs_stats start_stats;     /* on the stored graph */
	fs_params start_params;
	int start_has_params;

	/* editing agent: its statistics are those of the reconnected graph
	 * (judge_e, the auto-connect method over the tubercles as they are),
	 * so added tubercles count with their neighbours at once; the best
	 * state by fs_agent_score_better is kept (snap_t) and ended on */
	int judged;
	fs_edge_list judge_e;
	double judge_len;         /* longest edge the judged graph keeps (fs_agent_judge_at), 0 = none yet */
	double cov_med;           /* the coverage's sampling scale (median edge of the last full build) */
	fs_blur_tiles *ev_blur;   /* the evidence measurement's smoothed image (agent_evidence.c, blur_tiles.h:
					* tile by tile on a large image), made on first use */
	double ev_pitch, ev_r, ev_c, ev_circ; /* its reference: lattice pitch, the set's median radius, contrast
						* and circularity (the lower quartile where ev_r_hi > ev_r_lo) */
	double ev_r_lo, ev_r_hi;  /* the radius band's ends: the readings' quartiles where the set's domes show
				   * two steps, else both the median (agent_evidence.c) */
	int ev_ready;             /* 1 once the reference is measured, -1 when it could not be */
	size_t ev_fail_n;         /* the set's size when it could not be */
	struct fs_agent_ev_memo *ev_memo; /* verdicts per tubercle id (and position), see fs_agent_evidenced */
	size_t ev_memo_n;
	double *ev_lk_ref;        /* the likeness's reference (agent_likeness.c): the set's median patch,
				   * (2 ev_lk_k + 1)^2 samples ev_lk_step px apart, ev_lk_m of them in its disc */
	int ev_lk_k;
	double ev_lk_step, ev_lk_m;
	double ev_lk_lo, ev_lk_med; /* the set's own likeness: lower quartile and median */
	double score_cov;         /* the tie-break: coverage of the scale region by the tubercles the
	                           * lattice supports and the image shows */
	fs_tubercle_list snap_t;
	double snap_hex, snap_cov;
	int snap_iteration;       /* -1 = the start */
	fs_tubercle_list turn_t;  /* the state before the current turn: a turn that lowers the score goes back to it */
	double turn_hex, turn_cov;
	int turn_edits;           /* added + deleted + moved before the turn */
	int rolled_back;          /* turns rolled back */
	double start_score_cov;   /* the start's coverage of the scale region (score_cov) */
	double plan_pitch;        /* the lattice pitch of the session's first plan, the floor of its
				   * later plans' (fs_agent_lattice_plan), 0 = none yet */

	fs_agent_shot_cache shots;
	fs_agent_debug_rect *dbg; /* debug rectangles drawn on screenshots (MCP) */
	size_t n_dbg;
	double shot_scale;        /* screenshot px per image px */
	int shot_w, shot_h;
	int start_count;
	double start_hex, start_cov;
	double best_hex, best_cov;
	int plateau;
	int added, deleted, moved;
	cJSON *actions;           /* action summary: [{iteration, action, ...}] */
	int finished;             /* finish tool called */
	char finish_text[512];

	/* both */
	int iteration;
	int turns;
	double t_start, t_iter;   /* monotonic seconds */
	double iter_seconds_sum;
	char phase[32];
	char stop_reason[32];     /* set when the run must end before the next turn */
	char model_text[2048];    /* the model's text of the current turn (reasoning) */
	char last_prompt[8192];
	char last_response[8192];
	char provider[32], model[128];
	long in_tokens, out_tokens;
	double cost_usd, last_step_cost;
	int cost_estimated;
	cJSON *log_lines;         /* newest FS_AGENT_LOG_KEEP lines */
	char last_action[64];
	fs_conv *conv;            /* the run's conversation (for reasoning text) */
	void *policy;             /* offline policy state, freed with policy_free */
	void (*policy_free)(void *);
	int call_seq;             /* ids of the offline policies' calls */
	int text_any, text_turn;  /* streamed text so far, and the turn it came in */
} fs_agent_sess;

/* Loads the image, the set and the starting parameters. 0 or -1 with err. */
int fs_agent_sess_init(fs_agent_sess *s, const fs_agent_job *job, fs_agent_env *env, char *err, size_t errlen);
void fs_agent_sess_free(fs_agent_sess *s);

/* The one named score of both agents: hexagonalness of the reconnected
 * graph, ties (closer than FS_AGENT_HEX_TIE) broken by coverage (the
 * editor's: of the lattice-supported tubercles, s->score_cov). 1 when
 * (ha, ca) beats (hb, cb). */
int fs_agent_score_better(double ha, double ca, double hb, double cb);
/* Recomputes s->stats: on the reconnected graph when s->judged, else on the
 * stored edges. 0 or -1 (out of memory). */
int fs_agent_judge(fs_agent_sess *s);
/* After one tubercle was added at or removed from (x, y) (s->t already
 * changed, boundary flags kept by the caller): reconnects only the
 * neighbourhood of the change (agent_reconnect.c) and recomputes the
 * statistics; falls back to fs_agent_judge without a baseline. 0 or -1. */
int fs_agent_judge_at(fs_agent_sess *s, double x, double y);
/* agent_reconnect.c: the splice behind fs_agent_judge_at (0, 1 = no
 * baseline, -1 out of memory; edges of moved_id, when >= 0, are dropped
 * wherever they are: a moved tubercle's old edges) and the edge length
 * bound it keeps. */
int fs_agent_reconnect_at(fs_agent_sess *s, double x, double y, int moved_id);
double fs_agent_reconnect_len(const fs_agent_sess *s);

/* Evidence of a tubercle at (x, y) in the image (agent_evidence.c): the
 * detector's blob measurement (fs_blob_measure) at the point and its local
 * contrast, both against the same measured on the set's own tubercles. */
typedef struct fs_agent_evidence {
	int ok;             /* 1: the image shows a tubercle there */
	double x, y;        /* the measured centre (the point when none) */
	double radius;      /* measured radius px, 0 when no blob */
	double circularity;
	double contrast;    /* local contrast / the set's median contrast */
	double likeness;    /* a site's likeness to the set's domes (agent_likeness.c), NAN when not read */
	char why[160];      /* the reason, in words with the figures */
} fs_agent_evidence;
/* 0, or -1 when there is no reference (fewer than 5 tubercles, out of
 * memory); then *ev says so and ok is 0. */
int fs_agent_evidence_at(fs_agent_sess *s, double x, double y, fs_agent_evidence *ev);
/* 1 when the set gives the evidence its reference (enough measurable
 * tubercles), else 0. */
int fs_agent_evidence_ready(fs_agent_sess *s);
/* The verdict for tubercle t, remembered per id and position (a moved or
 * renumbered tubercle is measured again): 1 shown by the image, 0 not;
 * 1 too when there is no reference to judge by. */
int fs_agent_evidenced(fs_agent_sess *s, const fs_tubercle *t);
/* The likeness of the image at a point to the set's own tubercles
 * (agent_likeness.c): fs_agent_likeness_reference makes the reference from
 * the points (x, y) (n of them, the set's) on the evidence's smoothed image
 * (s->ev_blur, s->ev_pitch set); 0, -1 when too few are readable or out of
 * memory (then none is kept). fs_agent_likeness_at: the largest normalised
 * correlation with it within reach pitches of (x, y), NAN without a reference;
 * where it is found in *px, *py (either may be NULL).
 * fs_agent_likeness_free drops the reference. */
int fs_agent_likeness_reference(fs_agent_sess *s, const double *x, const double *y, size_t n);
double fs_agent_likeness_at(fs_agent_sess *s, double x, double y, double reach, double *px, double *py);
void fs_agent_likeness_free(fs_agent_sess *s);
/* fs_agent_evidenced for the tubercles of t with want[i] set, in the order
 * of the evidence's tiles (blur_tiles.h), so that a sweep over a large
 * image's set blurs each tile about once whatever the set's order; the
 * verdicts are remembered, so the caller's own loop then finds them. The
 * verdicts do not depend on the order. Nothing is done on an image blurred
 * whole (up to FS_BLUR_TILES_WHOLE_MAX pixels) or when nothing is wanted. */
void fs_agent_evidence_warm(fs_agent_sess *s, const fs_tubercle_list *t, const unsigned char *want);

/* Replaces the set with tubercles t (ids renumbered 1..n), connected by the
 * auto-connect method, and params when given; one journal step of kind. */
int fs_agent_store_state(fs_agent_sess *s, const fs_tubercle_list *t, const fs_params *params, const char *kind,
			 char *err, size_t errlen);

/* Reloads the set from SQLite and recomputes its statistics. */
int fs_agent_sess_reload(fs_agent_sess *s, char *err, size_t errlen);

/* "[HH:MM:SS] text" to env->on_log, kept in the status. */
void fs_agent_log(fs_agent_sess *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "STATUS: {json}" of a compact object (taken over). */
void fs_agent_status_line(fs_agent_sess *s, cJSON *obj);
/* The complete status object (caller deletes); state is "running" etc. */
cJSON *fs_agent_status(const fs_agent_sess *s, const char *state, const char *finish_reason);
/* The set's "agent_complete" history entry of a run that ends: the reason,
 * kind, run and iterations used, then what the kind adds (fill), then the
 * timing (wall seconds in all) and the model's usage. */
void fs_agent_complete_event(fs_agent_sess *s, const char *kind, const char *reason, double wall,
			     void (*fill)(const fs_agent_sess *s, cJSON *ev));
/* Builds the status and hands it to env->on_status. */
void fs_agent_emit_status(fs_agent_sess *s);
double fs_agent_now(void);
/* v rounded to 3 decimals, as the status, the history entries and the
 * tools' answers give their figures */
double fs_agent_r3(double v);

/* The model's text in the turn whose calls are running (its reasoning). */
const char *fs_agent_turn_text(const fs_agent_sess *s);
/* Metrics object of seed 001 §8.3 (caller deletes). */
cJSON *fs_agent_metrics_json(const fs_stats *st);

/* 1 when tool is in list ("get_*, select_tubercles": names, "prefix*"). */
int fs_agent_tool_listed(const char *list, const char *tool);

/* A transcript record of type (obj taken over, may be NULL) to env->on_record. */
void fs_agent_record(fs_agent_sess *s, const char *type, cJSON *obj);
/* The provider's retry (llm_http.h on_retry): a log line and a record. */
void fs_agent_on_retry(void *user, int attempt, long delay_ms, long http_status, const char *why);

/* Usage, prompt and response of one loop step (from agent_loop's on_step). */
void fs_agent_take_step(fs_agent_sess *s, const cJSON *step);

/* Tools of the optimiser (seed 001 §2.2.2) and of the editing agent
 * (seed 000); chat uses the editing tools without finish. */
int fs_fish_tools_add_optimize(fs_tool_registry *reg, fs_agent_sess *s, char *err, size_t errlen);
int fs_fish_tools_add_edit(fs_tool_registry *reg, fs_agent_sess *s, int with_finish, char *err, size_t errlen);

/* Optimiser helpers shared with the offline policy. */
int fs_agent_params_equal(const fs_params *a, const fs_params *b);
/* Index of the trial with exactly these parameters, or -1. */
int fs_agent_trial_find(const fs_agent_sess *s, const fs_params *p);

/* Edit helpers shared with the offline policy and the finishing steps. */
int fs_agent_auto_connect(fs_agent_sess *s, const char *method, int *n_edges, char *err, size_t errlen);
/* Detection with the session's parameters into the (empty) set, one
 * journal step; the editor's first step on an empty set. *n found. */
int fs_agent_initial_extraction(fs_agent_sess *s, int *n, char *err, size_t errlen);
/* Deletes tubercles with fewer than 2 neighbours (one journal step); *n
 * deleted. One inside the scale region that the image shows
 * (fs_agent_evidenced, when the set gives the evidence a reference) is
 * kept: the set may lack its neighbours, not the image. */
int fs_agent_cleanup_boundary(fs_agent_sess *s, int *n, char *err, size_t errlen);
/* Degree of each tubercle of s->t (array parallel to s->t.items, caller frees). */
int *fs_agent_degrees(const fs_agent_sess *s);

/* Lattice fit of the offline policies: sites to add (image pixels, none
 * within half a pitch of avoid; only where fs_agent_evidence_at finds a
 * tubercle, inside the scale region) and ids to delete (off the lattice
 * outside the scale region, duplicates, or without the evidence), each
 * with its reason; see
 * agent_local_edit.c. */
typedef struct fs_lattice_plan {
	double *ax, *ay;
	size_t n_add;
	int *del;
	size_t n_del;
	char (*add_why)[160];    /* per site added / id deleted: the evidence in words */
	char (*del_why)[160];
	size_t n_refused;        /* predicted sites the image does not support: */
	double *rx, *ry;         /* where (the offline editor does not look there again) */
	double pitch;
} fs_lattice_plan;
int fs_agent_lattice_plan(fs_agent_sess *s, const double *avoid_x, const double *avoid_y, size_t n_avoid,
			  size_t max_add, fs_lattice_plan *out);
void fs_lattice_plan_free(fs_lattice_plan *p);
/* Appends a call named name (args taken over, NULL = {}) with a fresh id. */
int fs_agent_local_call(fs_llm_reply *out, int *seq, const char *name, cJSON *args);
/* {x, y} in screenshot pixels for an image point (new object in *args). */
int fs_agent_local_point_args(const fs_agent_sess *s, double x, double y, cJSON **args);

/* Offline policies (the "local" provider). user is the session. */
int fs_agent_local_optimize(const fs_conv *conv, const cJSON *tools, fs_llm_reply *out, void *user, char *err,
			    size_t errlen);
int fs_agent_local_edit(const fs_conv *conv, const cJSON *tools, fs_llm_reply *out, void *user, char *err,
			size_t errlen);
int fs_agent_local_chat(const fs_conv *conv, const cJSON *tools, fs_llm_reply *out, void *user, char *err,
			size_t errlen);

/* Per-kind drivers; they fill *final_status. */
struct fs_agent_kind_ops {
	fs_agent_kind kind;
	int (*run)(fs_agent_sess *s, fs_llm *llm, const fs_prices *prices, cJSON **final_status, char *err,
		   size_t errlen);
	fs_local_policy_fn local_policy; /* what the offline "local" provider answers with */
	const char *local_model;         /* its model name in status and runs */
};
extern const fs_agent_kind_ops fs_agent_kind_optimize;
extern const fs_agent_kind_ops fs_agent_kind_edit;
extern const fs_agent_kind_ops fs_agent_kind_chat;

int fs_agent_run_optimize(fs_agent_sess *s, fs_llm *llm, const fs_prices *prices, cJSON **final_status,
			  char *err, size_t errlen);
int fs_agent_run_edit(fs_agent_sess *s, fs_llm *llm, const fs_prices *prices, cJSON **final_status, char *err,
		      size_t errlen);
int fs_agent_run_chat(fs_agent_sess *s, fs_llm *llm, const fs_prices *prices, cJSON **final_status, char *err,
		      size_t errlen);

/* Shared loop glue: hooks that feed the session, the approval proposal,
 * mapping of the loop's finish reason onto the run's. */
void fs_agent_hooks_init(fs_agent_hooks *h, fs_agent_sess *s, void (*on_step)(const cJSON *, void *));
cJSON *fs_agent_proposal(const fs_agent_sess *s, const char *tool, const cJSON *args);
const char *fs_agent_finish_reason(const fs_agent_sess *s, const fs_agent_result *res);
const char *fs_agent_state_for(const char *reason);

#endif
