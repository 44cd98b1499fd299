/* phase_clock.c - a piece of work's time phase by phase (see phase_clock.h). */
#include "base/phase_clock.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"

double fs_thread_cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double fs_thread_runq_ms(void)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	unsigned long long run = 0, wait = 0;
	int n = f ? fscanf(f, "%llu %llu", &run, &wait) : 0;
	if (f)
		fclose(f);
	return n == 2 ? wait / 1e6 : -1;
}

void fs_phase_clock_init(fs_phase_clock *c)
{
	memset(c, 0, sizeof *c);
	c->open = -1;
}

void fs_phase_end(fs_phase_clock *c)
{
	if (c->open < 0)
		return;
	fs_phase *p = &c->p[c->open];
	/* read inside out (wall last here, first in fs_phase_begin): a
	 * preemption between two reads then falls in the wall interval only,
	 * so the run queue's wait and the CPU time never exceed the wall time
	 * (a wait between the run queue's read and the clock's used to) */
	double rq = fs_thread_runq_ms();
	double cpu = fs_thread_cpu_ms();
	p->wall_ms += fs_mono_s() * 1e3 - c->wall0;
	p->cpu_ms += cpu - c->cpu0;
	if (p->runq_ms >= 0)
		p->runq_ms = rq >= 0 && c->runq0 >= 0 ? p->runq_ms + rq - c->runq0 : -1;
	c->open = -1;
}

void fs_phase_begin(fs_phase_clock *c, const char *name)
{
	fs_phase_end(c);
	int k = 0;
	while (k < c->n && strcmp(c->p[k].name, name))
		k++;
	if (k == c->n) {
		if (c->n < FS_PHASES_MAX)
			c->p[c->n++].name = name;
		else
			k = FS_PHASES_MAX - 1;
	}
	c->p[k].count++;
	c->open = k;
	c->wall0 = fs_mono_s() * 1e3;
	c->cpu0 = fs_thread_cpu_ms();
	c->runq0 = fs_thread_runq_ms();
}

void fs_phase_clock_text(const fs_phase_clock *c, char *out, size_t n)
{
	size_t used = 0;
	if (n)
		out[0] = 0;
	for (int k = 0; k < c->n && used < n; k++) {
		const fs_phase *p = &c->p[k];
		int w = p->runq_ms >= 0 ? snprintf(out + used, n - used, "%s%s %.0f/%.0f/%.0f", k ? ", " : "", p->name,
						    p->wall_ms, p->cpu_ms, p->runq_ms)
					: snprintf(out + used, n - used, "%s%s %.0f/%.0f", k ? ", " : "", p->name,
						    p->wall_ms, p->cpu_ms);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}
