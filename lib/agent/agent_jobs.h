/*
 * agent_jobs.h - the two fish-scale agents as library functions: the
 * extraction-parameter optimiser (AgenticExtraction, seed 001) and the
 * pattern-completion editing agent (AgenticEdit, seed 000), plus the chat
 * instruction mode of the editing agent (seed 002). They work directly on an
 * annotation set in SQLite through lib/store/sets_store.h (so a browser sees each
 * change), with any provider of lib/agent/llm_provider.h, or the built-in offline
 * provider "local" whose turns come from algorithms.
 *
 * Who calls it: the agent worker process (cgi/main_agent.c, started by the
 * web application), `fishscale agent optimize|edit` and the MCP server.
 * The function is synchronous; the caller turns status updates into its
 * status file / terminal output and answers should_stop / approve.
 *
 * Ownership: the job and env are borrowed for the call; *final_status is a
 * new cJSON the caller deletes.
 */
#ifndef FS_AGENT_JOBS_H
#define FS_AGENT_JOBS_H

#include <stddef.h>

#include <cJSON.h>

#include "base/config.h"
#include "store/db.h"

typedef enum fs_agent_kind {
	FS_AGENT_OPTIMIZE = 1,
	FS_AGENT_EDIT = 2,
	FS_AGENT_CHAT = 3,
	FS_AGENT_KIND_MAX = FS_AGENT_CHAT
} fs_agent_kind;

/* A kind of job (agent_fish_tools.h defines it): each kind registers one
 * into the runner's table, which calls nothing by name. */
typedef struct fs_agent_kind_ops fs_agent_kind_ops;

/* Registers a kind (the table keeps the pointer: a static object). -1 when
 * it is incomplete. fs_agent_kinds_register_all (agent_kinds.c) registers the
 * built-in ones; programs call it once before running jobs. */
int fs_agent_kind_register(const fs_agent_kind_ops *ops);
void fs_agent_kinds_register_all(void);

typedef struct fs_agent_job {
	fs_agent_kind kind;
	long long run_id;            /* agent_runs row (0 when standalone) */
	long long user_id, image_id, set_id;
	char provider[32];           /* "local" (default when no key), anthropic, openai, openrouter, ollama, vllm, gemini */
	char model[128];
	int max_iterations;          /* both agents */
	int max_seconds;             /* wall clock limit */
	double max_cost_usd;
	/* optimiser */
	char profile[64];            /* starting profile; "" = the set's current parameters */
	double target_score;         /* stop when hexagonalness >= this (default 0.85) */
	double plateau_threshold;    /* minimum improvement that counts (default 0.005) */
	int plateau_iterations;      /* stop after this many without improvement (default 5) */
	/* editing agent */
	int auto_connect;            /* regenerate connections at the end */
	char auto_connect_method[16];/* delaunay | gabriel | rng */
	int cleanup_boundary;        /* delete tubercles with < 2 neighbours at the end */
	int keep_best;               /* end on the best state seen (default 1; 0 = the person keeps the end) */
	int approve_each_step;       /* ask env->approve before each tool call */
	int approve_timeout_s;       /* no answer in time: the run stops, reason "approval_timeout" */
	char instruction[4096];      /* chat mode: the user's words */
	int max_tool_calls;          /* chat mode default 20 */
} fs_agent_job;

typedef struct fs_agent_env {
	fs_db *db;
	const fs_config *cfg;
	const char *data_dir;        /* resolved data directory */
	const char *prices_path;     /* conf/prices.conf */
	/* status: the complete status object each time something changes (the
	 * fields of seed 000's status response and seed 001 §7.3) */
	void (*on_status)(void *ud, const cJSON *status);
	/* one log line without newline: "[HH:MM:SS] ..." or "STATUS: {json}" */
	void (*on_log)(void *ud, const char *line);
	/* streamed text of the model (chat panel) */
	void (*on_text)(void *ud, const char *delta);
	/* non-zero when the run must stop (SIGTERM, user Stop) */
	int (*should_stop)(void *ud);
	/* approve-each-step: returns 1 approve, 0 reject (reason written), -1 timeout;
	 * proposal has {tool, arguments, reasoning, preview} */
	int (*approve)(void *ud, const cJSON *proposal, char *reason, size_t reasonlen);
	/* the run's transcript: one record per model call, tool call, tool
	 * error and retry ({"type", "t" (seconds since the start), ...}; keys
	 * and images removed), written as a line of JSONL by the caller */
	void (*on_record)(void *ud, const cJSON *record);
	void *ud;
} fs_agent_env;

void fs_agent_job_default(fs_agent_job *job, fs_agent_kind kind);

/*
 * Runs the job to its end. Returns 0 when the run ended normally (completed,
 * target reached, plateau, max iterations, stopped by the user, ...) and
 * -1 when it failed (provider error, storage error): the final status says
 * which, with state "completed" | "stopped" | "failed" and finish_reason.
 */
int fs_agent_job_run(const fs_agent_job *job, fs_agent_env *env, cJSON **final_status, char *err, size_t errlen);

#endif
