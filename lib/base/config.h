/*
 * config.h - fishscale's configuration: one key = value file
 * (conf/fishscale.conf documents every key) with environment overrides.
 *
 * Precedence, lowest to highest: built-in defaults, the file, then the
 * environment variable FISHSCALE_<KEY IN UPPER CASE> for each key (for
 * example FISHSCALE_DATA_DIR). FISH_SCALE_AGENT_TABS (the original tool's
 * name) also sets agent_tabs.
 *
 * The struct is plain data with fixed-size strings: no ownership questions.
 */
#ifndef FS_CONFIG_H
#define FS_CONFIG_H

#include <stddef.h>

#define FS_CONF_STR 512
/* the read-only agent tools that need no approval (also the user setting's default) */
#define FS_NO_APPROVAL_DEFAULT "get_*,select_tubercles"

typedef struct fs_config {
	char data_dir[FS_CONF_STR];        /* images, database, run files */
	char base_path[FS_CONF_STR];       /* URL prefix, "/" or "/fishscale/" (always ends in '/') */
	char listen_address[64];           /* nginx listen address */
	int port;                          /* nginx listen port */
	int fcgi_workers;                  /* FastCGI processes */
	char trusted_proxies[FS_CONF_STR]; /* comma-separated addresses whose X-Forwarded-* we believe */
	int trusted_proxies_given;         /* set by the file or the environment, not the default */
	char web_group[64];                /* group nginx runs as: owns the data directory (2750); "" = keep */
	int session_idle_minutes;
	int session_absolute_hours;
	int upload_max_mb;                 /* largest request body (nginx and the application) */
	long max_pixels;                   /* largest image, width x height */
	int user_quota_mb;                 /* disk a user's images may take (0 = no limit) */
	long sync_max_pixels;              /* larger images are extracted by a background job */
	long import_sync_max_pixels;       /* larger uploads are decoded by a background job */
	int tile_min_side;                 /* images with a larger side get a display pyramid (0 = never) */
	int jobs_max_running;              /* heavy jobs at once on the site (0 = cores - 1, at least 1) */
	int jobs_memory_mb;                /* memory the running jobs may take (0 = half the RAM) */
	int set_pack_min;                  /* sets replaced with this many tubercles are stored packed */
	int set_stage_chunk_kb;            /* large results are written in chunks this large (KiB) */
	int login_max_failures;            /* failures per account or address within the window */
	int login_window_minutes;
	char sso_header[64];               /* e.g. X-Remote-User; "" = single sign-on off */
	int sso_create_users;              /* create a member account for an unknown SSO user */
	int agent_max_runs_per_user;
	int agent_max_runs_total;
	int agent_max_iterations;
	int agent_max_seconds;
	double agent_max_cost_usd;
	char agent_tabs[64];               /* "", "1", "extraction", "editing", "extraction,editing" */
	char anthropic_key_env[64];        /* NAMES of environment variables, never keys */
	char openai_key_env[64];
	char openrouter_key_env[64];
	char gemini_key_env[64];
	char key_file[FS_CONF_STR];        /* optional 0600 file with "provider = key" lines */
	char anthropic_base_url[FS_CONF_STR];
	char openai_base_url[FS_CONF_STR];
	char openrouter_base_url[FS_CONF_STR];
	char gemini_base_url[FS_CONF_STR];
	char ollama_base_url[FS_CONF_STR];
	char vllm_base_url[FS_CONF_STR];
	char agent_no_approval_tools[FS_CONF_STR]; /* tools run without asking under approve-each-step: names, "prefix*" */
	int agent_http_timeout_s;          /* one provider request, whole */
	int agent_http_connect_timeout_s;
	int agent_http_retries;            /* retries of a failed provider request (429, 5xx, network) */
	char measurement_rule[16];         /* "outline", "dome" or "" = the build's default (analysis/measurement.h) */
} fs_config;

/* Description of one key, for documentation and `fishscale config`. */
typedef struct fs_config_key {
	const char *name;
	const char *help;
} fs_config_key;

void fs_config_defaults(fs_config *c);

/*
 * Reads path (may be NULL or missing when missing_ok) over the defaults
 * already in c, then applies environment overrides. Returns 0, or -1 with
 * "file:line: message" in err for an unknown key, a bad value or an
 * unreadable file.
 */
int fs_config_load(fs_config *c, const char *path, int missing_ok, char *err, size_t errlen);

/* Applies a single key = value (the file and the environment use this). */
int fs_config_set(fs_config *c, const char *key, const char *value, char *err, size_t errlen);

/* Prints the value of one key into out; -1 for an unknown key. */
int fs_config_get(const fs_config *c, const char *key, char *out, size_t outlen);

const fs_config_key *fs_config_keys(size_t *count);

/*
 * Single sign-on believes a header, so it needs to know exactly whom to
 * believe: with sso_header set, trusted_proxies must be given explicitly
 * (the default loopback list would let any local process log in as anyone;
 * fs_config_load empties it then). Returns 0, or -1 with err when
 * sso_header is set and trusted_proxies was not given or is empty.
 */
int fs_config_check_sso(const fs_config *c, char *err, size_t errlen);
/* A warning (into out, "" when none) for SSO trusting a loopback address. */
void fs_config_sso_warning(const fs_config *c, char *out, size_t outlen);

/* 1 when addr is listed in trusted_proxies. */
int fs_config_is_trusted_proxy(const fs_config *c, const char *addr);

/* For an LLM provider name ("anthropic" or "claude", "openai", "openrouter",
 * "gemini", "ollama"): the NAME of the environment variable holding its key
 * and its base URL from the configuration; NULL when none is configured. */
const char *fs_config_provider_key_env(const fs_config *c, const char *provider);
const char *fs_config_provider_base_url(const fs_config *c, const char *provider);

/* Which agent tabs are visible: bit 1 = extraction, bit 2 = editing. */
int fs_config_agent_tabs(const fs_config *c);

#endif
