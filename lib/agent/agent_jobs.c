/*
 * agent_jobs.c - runs an agent job (agent_jobs.h): finds the job's kind in
 * the table the kinds registered into (agent_kinds.c), makes the provider (a
 * real one or the kind's offline policy) and hands the session to the kind.
 */
#include <stdio.h>
#include <string.h>

#include "agent/agent_fish_tools.h"
#include "agent/agent_jobs.h"

/* One slot per fs_agent_kind value; filled once at start-up. */
static const fs_agent_kind_ops *kinds[FS_AGENT_KIND_MAX + 1];

int fs_agent_kind_register(const fs_agent_kind_ops *ops)
{
	if (!ops || ops->kind < 1 || ops->kind > FS_AGENT_KIND_MAX || !ops->run || !ops->local_policy)
		return -1;
	kinds[ops->kind] = ops;
	return 0;
}

static const fs_agent_kind_ops *find_kind(fs_agent_kind k)
{
	return k >= 1 && k <= FS_AGENT_KIND_MAX ? kinds[k] : NULL;
}

void fs_agent_job_default(fs_agent_job *job, fs_agent_kind kind)
{
	memset(job, 0, sizeof(*job));
	job->kind = kind;
	snprintf(job->provider, sizeof(job->provider), "local");
	job->max_seconds = 1800;
	job->max_cost_usd = 5.0;
	job->target_score = 0.85;
	job->plateau_threshold = 0.005;
	if (kind == FS_AGENT_OPTIMIZE) {
		job->max_iterations = 20;
		job->plateau_iterations = 5;
	} else {
		/* seed 000: 30 iterations, stop after 3 without improvement */
		job->max_iterations = 30;
		job->plateau_iterations = 3;
	}
	job->auto_connect = 1;
	snprintf(job->auto_connect_method, sizeof(job->auto_connect_method), "gabriel");
	job->cleanup_boundary = 1;
	job->keep_best = 1;
	job->approve_timeout_s = 300;
	job->max_tool_calls = 20;
}

static fs_llm *make_llm(const fs_agent_job *job, fs_agent_env *env, fs_agent_sess *s, char *err, size_t errlen)
{
	const char *p = job->provider[0] ? job->provider : "local";
	if (!strcmp(p, "local")) {
		const fs_agent_kind_ops *k = find_kind(job->kind);
		return fs_llm_new_local(k->local_model, k->local_policy, s, err, errlen);
	}
	fs_llm_config c;
	fs_llm_config_default(&c);
	c.provider = p;
	c.model = job->model[0] ? job->model : NULL;
	c.base_url = fs_config_provider_base_url(env->cfg, p);
	c.key_env = fs_config_provider_key_env(env->cfg, p);
	c.key_file = env->cfg && env->cfg->key_file[0] ? env->cfg->key_file : NULL;
	c.stream = env->on_text != NULL;
	if (env->cfg) {
		if (env->cfg->agent_http_timeout_s > 0)
			c.http.total_timeout_ms = 1000L * env->cfg->agent_http_timeout_s;
		if (env->cfg->agent_http_connect_timeout_s > 0)
			c.http.connect_timeout_ms = 1000L * env->cfg->agent_http_connect_timeout_s;
		c.http.retry.max_attempts = env->cfg->agent_http_retries + 1;
	}
	c.http.on_retry = fs_agent_on_retry;
	c.http.retry_user = s;
	return fs_llm_new(&c, err, errlen);
}

int fs_agent_job_run(const fs_agent_job *job, fs_agent_env *env, cJSON **final_status, char *err, size_t errlen)
{
	fs_agent_sess s;
	fs_llm *llm = NULL;
	fs_prices prices = {0};
	int rc = -1;

	*final_status = NULL;
	const fs_agent_kind_ops *kind = find_kind(job->kind);
	if (!kind) {
		snprintf(err, errlen, "agent kind %d is not registered", (int)job->kind);
		return -1;
	}
	if (fs_agent_sess_init(&s, job, env, err, errlen))
		goto fail_early;
	llm = make_llm(job, env, &s, err, errlen);
	if (!llm)
		goto fail_early;
	snprintf(s.provider, sizeof(s.provider), "%s", fs_llm_provider(llm));
	snprintf(s.model, sizeof(s.model), "%s", fs_llm_model(llm) ? fs_llm_model(llm) : "");
	if (env->prices_path && fs_prices_load(&prices, env->prices_path, err, errlen))
		fs_agent_log(&s, "Price table not loaded (%s): costs are estimates", err);
	rc = kind->run(&s, llm, &prices, final_status, err, errlen);
	fs_llm_free(llm);
	fs_prices_free(&prices);
	fs_agent_sess_free(&s);
	return rc;

fail_early:
	/* the caller still gets a status that says why */
	if (s.log_lines) {
		fs_agent_log(&s, "Agent error: %s", err);
		*final_status = fs_agent_status(&s, "failed", "error");
		if (*final_status)
			cJSON_AddStringToObject(*final_status, "error", err);
	}
	fs_llm_free(llm);
	fs_agent_sess_free(&s);
	return -1;
}
