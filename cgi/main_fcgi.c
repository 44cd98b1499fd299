/*
 * main_fcgi.c - fishscale.fcgi: the FastCGI application.
 *
 * spawn-fcgi (or systemd socket activation) hands this program its
 * listening socket on fd 0. The process started there is a small
 * supervisor: it forks fcgi_workers children that each run the libfcgi
 * accept loop on that socket, replaces a child that dies, and on SIGTERM or
 * SIGINT stops them all. Nothing is opened before the fork, so no child
 * shares an SQLite handle with another. One more child, the checkpointer,
 * copies SQLite's WAL back into the database, so that no request does.
 *
 * Usage: fishscale.fcgi [--root DIR] [--config FILE] [--workers N] [--single]
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fcgiapp.h>

#include "base/base.h"
#include "app/app.h"
#include "routes/router.h"

static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

static const char *env_get(void *ctx, const char *name)
{
	FCGX_Request *req = ctx;
	return FCGX_GetParam(name, req->envp);
}

static long body_read(void *ctx, char *buf, size_t n)
{
	FCGX_Request *req = ctx;
	if (n > 1 << 30)
		n = 1 << 30;
	int got = FCGX_GetStr(buf, (int)n, req->in);
	if (got < 0 || FCGX_GetError(req->in))
		return -1;
	return got;
}

/* Status, Content-Type and the handler's headers. libfcgi's own printf
 * knows no %zu and little else: format with snprintf. */
static int send_head(FCGX_Request *req, const fs_resp *w)
{
	char head[256];
	int n = snprintf(head, sizeof head, "Status: %d %s\r\n", w->status, fs_http_reason(w->status));
	int bad = FCGX_PutStr(head, n, req->out) < 0;
	if (w->content_type[0]) {
		n = snprintf(head, sizeof head, "Content-Type: %s\r\n", w->content_type);
		bad |= FCGX_PutStr(head, n, req->out) < 0;
	}
	if (w->headers.len)
		bad |= FCGX_PutStr(w->headers.data, (int)w->headers.len, req->out) < 0;
	return bad ? -1 : 0;
}

static void send_response(FCGX_Request *req, const fs_req *r, fs_resp *w)
{
	char head[64];
	send_head(req, w);
	int n = snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", w->body.len);
	FCGX_PutStr(head, n, req->out);
	if (strcmp(r->method ? r->method : "", "HEAD") && w->body.len)
		FCGX_PutStr(w->body.data, (int)w->body.len, req->out);
}

/* A streamed answer (http.h): the head without a Content-Length, then the
 * body in the pieces the handler writes. A write fails once nginx has
 * closed the connection (the client left): the handler stops there. */
struct stream_io {
	FCGX_Request *req;
	long long sent; /* body bytes of this answer */
};

/* A test's hook (tests/integration/test_downloads.py): with
 * FISHSCALE_TEST_STREAM_CUT_AFTER=N in the environment a streamed body
 * fails after N bytes, as a writer out of memory would, so that the test
 * sees what the client is given then. -1: off. */
static long long cut_after = -1;

static int stream_head(void *ctx, const fs_resp *w)
{
	FCGX_Request *req = ((struct stream_io *)ctx)->req;
	return send_head(req, w) || FCGX_PutStr("\r\n", 2, req->out) < 0 ? -1 : 0;
}

static int stream_body(void *ctx, const char *p, size_t n)
{
	struct stream_io *io = ctx;
	FCGX_Request *req = io->req;
	if (cut_after >= 0 && (io->sent += (long long)n) > cut_after)
		return -1;
	while (n) {
		int k = n > (1u << 30) ? 1 << 30 : (int)n;
		if (FCGX_PutStr(p, k, req->out) != k || FCGX_GetError(req->out))
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/*
 * A streamed answer that could not be finished (a writer failed after the
 * head was sent). nginx ends the client's answer as complete (the last
 * chunk) when the connection just closes, cut or not, so what it reads
 * next is a record no FastCGI application sends (version 0): nginx takes
 * that as an upstream error and drops the client's connection without the
 * last chunk, and the client sees an incomplete answer. The descriptor
 * stays open until FCGX_Finish_r closes it; its writes then fail quietly.
 */
static void cut_stream(FCGX_Request *req)
{
	static const unsigned char bad[8] = {0};
	FCGX_FFlush(req->out);
	ssize_t n = write(req->ipcFd, bad, sizeof bad);
	(void)n; /* the client may be gone: nothing to do either way */
	shutdown(req->ipcFd, SHUT_RDWR);
}

static int worker(const char *root, const char *config, int single)
{
	fs_app app;
	char err[512];
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	if (fs_app_config(&app, root, config, err, sizeof err) || fs_app_open(&app, 1, err, sizeof err)) {
		fprintf(stderr, "fishscale.fcgi: %s\n", err);
		return 1;
	}
	/* no checkpoint on the request path: the checkpointer copies the WAL
	 * back, so an edit never pays for another process's large write */
	if (!single)
		fs_db_checkpoint_on_commit(app.db, 0);
	if (FCGX_Init()) {
		fprintf(stderr, "fishscale.fcgi: FCGX_Init failed\n");
		return 1;
	}
	const char *cut = getenv("FISHSCALE_TEST_STREAM_CUT_AFTER");
	if (cut && *cut)
		cut_after = atoll(cut);
	FCGX_Request req;
	FCGX_InitRequest(&req, 0, 0);
	while (FCGX_Accept_r(&req) >= 0) {
		fs_req r;
		fs_resp w;
		struct stream_io io = {&req, 0};
		fs_resp_out out = {stream_head, stream_body, &io};
		fs_req_init(&r, &app, env_get, body_read, &req);
		fs_resp_init(&w);
		w.out = &out;
		fs_dispatch(&r, &w);
		if (!w.streaming)
			send_response(&req, &r, &w);
		else if (w.stream_failed)
			cut_stream(&req);
		/* writes that did not fail the request (db.h, best effort) */
		(void)fs_app_log_skipped(&app, stderr);
		fs_resp_free(&w);
		fs_req_free(&r);
		FCGX_Finish_r(&req);
	}
	fs_app_close(&app);
	return 0;
}

/*
 * The checkpointer: the workers do not checkpoint after their commits (see
 * worker()), this process does, a passive checkpoint every half second
 * (it never waits for a lock nor makes a writer wait), and once a minute
 * sweeps staged results' garbage. It ends with the supervisor.
 */
static int checkpointer(const char *root, const char *config)
{
	fs_app app;
	char err[512];
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	pid_t parent = getppid();
	/* its own name, so that it is told from the workers (ps, the tests) */
	prctl(PR_SET_NAME, "fs-checkpointer", 0, 0, 0);
	if (fs_app_config(&app, root, config, err, sizeof err) || fs_app_open(&app, 0, err, sizeof err)) {
		fprintf(stderr, "fishscale.fcgi checkpointer: %s\n", err);
		return 1;
	}
	for (unsigned tick = 1; getppid() == parent; tick++) {
		struct timespec ts = {0, 500 * 1000 * 1000};
		nanosleep(&ts, NULL);
		(void)fs_db_checkpoint(app.db, NULL);
		/* once a minute, the garbage of staged results that no staged
		 * store came to sweep: a deleted set's record, the chunks of a
		 * job killed while it wrote (staged_blob.h; short transactions) */
		if (tick % 120 == 0)
			(void)fs_blob_sweep(app.db, NULL);
	}
	fs_app_close(&app);
	return 0;
}

static pid_t spawn_checkpointer(const char *root, const char *config)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(checkpointer(root, config));
	return pid;
}

static pid_t spawn(const char *root, const char *config)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(worker(root, config, 0));
	return pid;
}

int main(int argc, char **argv)
{
	fs_app_umask(); /* before anything is created: see app.h */
	const char *root = ".", *config = NULL;
	int workers = 0, single = 0;
	fs_heap_keep_images();
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--root") && i + 1 < argc)
			root = argv[++i];
		else if (!strcmp(argv[i], "--config") && i + 1 < argc)
			config = argv[++i];
		else if (!strcmp(argv[i], "--workers") && i + 1 < argc)
			workers = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--single"))
			single = 1;
		else {
			fprintf(stderr, "usage: fishscale.fcgi [--root DIR] [--config FILE] [--workers N] [--single]\n");
			return 2;
		}
	}
	if (single)
		return worker(root, config, 1);
	fs_app app;
	char err[512];
	if (fs_app_config(&app, root, config, err, sizeof err)) {
		fprintf(stderr, "fishscale.fcgi: %s\n", err);
		return 1;
	}
	char warn[512];
	fs_config_sso_warning(&app.cfg, warn, sizeof warn);
	if (warn[0])
		fprintf(stderr, "fishscale.fcgi: %s\n", warn);
	if (fs_app_secure_data_dir(&app, err, sizeof err)) {
		fprintf(stderr, "fishscale.fcgi: %s\n", err);
		return 1;
	}
	if (workers <= 0)
		workers = app.cfg.fcgi_workers;
	if (workers > 64)
		workers = 64;

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	pid_t kids[64] = {0};
	for (int i = 0; i < workers; i++)
		kids[i] = spawn(root, config);
	pid_t ckpt = spawn_checkpointer(root, config);
	time_t window = time(NULL);
	int restarts = 0;
	while (!stopping) {
		int status;
		pid_t pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (stopping)
			break;
		if (pid == ckpt) {
			fprintf(stderr, "fishscale.fcgi: checkpointer %d exited (status %d), starting another\n", (int)pid,
				status);
			struct timespec ts = {1, 0};
			nanosleep(&ts, NULL);
			ckpt = spawn_checkpointer(root, config);
			continue;
		}
		for (int i = 0; i < workers; i++) {
			if (kids[i] != pid)
				continue;
			/* a worker that keeps dying at start-up must not spin */
			if (time(NULL) - window > 10) {
				window = time(NULL);
				restarts = 0;
			}
			if (++restarts > 20) {
				struct timespec ts = {1, 0};
				nanosleep(&ts, NULL);
			}
			fprintf(stderr, "fishscale.fcgi: worker %d exited (status %d), starting another\n", (int)pid,
				status);
			kids[i] = spawn(root, config);
		}
	}
	for (int i = 0; i < workers; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGTERM);
	if (ckpt > 0)
		kill(ckpt, SIGTERM);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	return 0;
}
