/*
 * fatal_note.c - a detached worker's last words on a fatal signal (see
 * fatal_note.h).
 */
#include "app/fatal_note.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char prefix[96];
static size_t prefix_len;
static char alt_stack[1 << 16];

static const char *sig_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGABRT: return "SIGABRT";
	default: return "?";
	}
}

/* Only async-signal-safe calls: write, raise. */
static void on_fatal(int sig)
{
	char line[160], num[8];
	size_t n = 0, k = 0;
	memcpy(line, prefix, prefix_len);
	n = prefix_len;
	int v = sig;
	do {
		num[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && k < sizeof num);
	while (k)
		line[n++] = num[--k];
	const char *name = sig_name(sig);
	line[n++] = ' ';
	line[n++] = '(';
	for (const char *c = name; *c; c++)
		line[n++] = *c;
	line[n++] = ')';
	line[n++] = '\n';
	ssize_t w = write(2, line, n);
	(void)w;
	/* SA_RESETHAND put the default action back: the signal ends the process */
	raise(sig);
}

int fs_fatal_note_install(const char *prog, long long id)
{
	int len = snprintf(prefix, sizeof prefix, "%s %lld: fatal signal ", prog, id);
	prefix_len = len < 0 ? 0 : (size_t)len < sizeof prefix ? (size_t)len : sizeof prefix - 1;
	stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof alt_stack, .ss_flags = 0};
	int rc = sigaltstack(&ss, NULL) ? -1 : 0;
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		if (sigaction(sigs[i], &sa, NULL))
			rc = -1;
	return rc;
}
