/*
 * mock_client.h - start, script, query and stop mock_server.py from a C test.
 *
 * Header-only (static functions) so a test includes it directly; it is not
 * part of the library. The server is started with fork/exec of python3 from
 * the repository root and reports its port on its first stdout line.
 */
#ifndef FS_MOCK_CLIENT_H
#define FS_MOCK_CLIENT_H

#include <curl/curl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cJSON.h>

#include "base/buf.h"

typedef struct mock_server {
	pid_t pid;
	int port;
	char base[64];
} mock_server;

static int mock_start(mock_server *m)
{
	int fds[2];
	char line[32];
	size_t n = 0;

	memset(m, 0, sizeof(*m));
	if (pipe(fds))
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execlp("python3", "python3", "tests/mock_provider/mock_server.py", "--port", "0", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (n < sizeof(line) - 1) {
		ssize_t r = read(fds[0], line + n, 1);
		if (r <= 0 || line[n] == '\n')
			break;
		n++;
	}
	line[n] = 0;
	close(fds[0]);
	m->pid = pid;
	m->port = atoi(line);
	if (m->port <= 0) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		return -1;
	}
	snprintf(m->base, sizeof(m->base), "http://127.0.0.1:%d", m->port);
	return 0;
}

static void mock_stop(mock_server *m)
{
	if (m->pid > 0) {
		kill(m->pid, SIGTERM);
		waitpid(m->pid, NULL, 0);
		m->pid = 0;
	}
}

static size_t mock_collect(char *p, size_t s, size_t n, void *u)
{
	return fs_buf_append(u, p, s * n) ? 0 : s * n;
}

/* POST (body != NULL) or GET path; returns the body (caller frees) or NULL. */
static char *mock_http(const mock_server *m, const char *path, const char *body)
{
	char url[256];
	fs_buf out = FS_BUF_INIT;
	CURL *c = curl_easy_init();
	long status = 0;
	if (!c)
		return NULL;
	snprintf(url, sizeof(url), "%s%s", m->base, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, mock_collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &out);
	if (body)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	CURLcode rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	if (rc != CURLE_OK || status != 200) {
		fs_buf_free(&out);
		return NULL;
	}
	fs_buf_reserve(&out, 0);
	return fs_buf_steal(&out);
}

static int mock_script(const mock_server *m, const char *script_json)
{
	char *r = mock_http(m, "/__script", script_json);
	int ok = r != NULL;
	free(r);
	return ok ? 0 : -1;
}

/* The recorded requests as a cJSON array (caller deletes), or NULL. */
static cJSON *mock_requests(const mock_server *m)
{
	char *r = mock_http(m, "/__requests", NULL);
	cJSON *j = r ? cJSON_Parse(r) : NULL;
	free(r);
	return j;
}

#endif
