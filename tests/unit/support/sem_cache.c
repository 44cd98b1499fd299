/* sem_cache.c - simulated scenes shared between the binaries of one test run
 * (sem_cache.h). */
#include "sem_cache.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static const char MAGIC[8] = {'F', 'S', 'S', 'E', 'M', 'C', 'A', '\n'};

/* A growing byte buffer; ok turns 0 on out of memory. */
typedef struct buf {
	unsigned char *p;
	size_t n, cap;
	int ok;
} buf;

static void put(buf *b, const void *v, size_t len)
{
	if (!b->ok)
		return;
	if (b->n + len > b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 4096;
		while (cap < b->n + len)
			cap *= 2;
		unsigned char *q = realloc(b->p, cap);
		if (!q) {
			b->ok = 0;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, v, len);
	b->n += len;
}

static void put_i32(buf *b, int32_t v)
{
	put(b, &v, sizeof v);
}

static void put_u64(buf *b, uint64_t v)
{
	put(b, &v, sizeof v);
}

static void put_f64(buf *b, double v)
{
	put(b, &v, sizeof v);
}

/* The key: every field of the options, one by one (the struct's padding
 * bytes are not data). A new field must be added here, or two scenes that
 * differ only in it would share a file: the size check stops the build
 * until it is. */
_Static_assert(sizeof(sem_opts) == 336, "sem_opts changed: add the new field to sem_cache.c's key()");

static void key(buf *b, const sem_opts *o)
{
	put_i32(b, o->width);
	put_i32(b, o->height);
	const double d1[] = {o->pitch,	      o->fill,	       o->angle,	 o->profile,	  o->h_over_r,
			     o->radius_jitter, o->pos_jitter,   o->missing,	 o->undulation,	  o->roughness,
			     o->secant_n,      o->det_azimuth,  o->det_elevation, o->det_strength, o->shadow,
			     o->edge,	       o->beam_blur,    o->dose};
	for (size_t i = 0; i < sizeof d1 / sizeof d1[0]; i++)
		put_f64(b, d1[i]);
	put_i32(b, o->bits);
	const double d2[] = {o->drift, o->halftone, o->scan_blur, o->resample};
	for (size_t i = 0; i < sizeof d2 / sizeof d2[0]; i++)
		put_f64(b, d2[i]);
	put_i32(b, o->jpeg_quality);
	put_i32(b, o->margin_top);
	put_i32(b, o->black_left);
	put_i32(b, (int32_t)o->seed);
	put_i32(b, o->supersample);
	put_i32(b, o->raw);
	put_f64(b, o->radius_scale);
	put_f64(b, o->lean);
	put_f64(b, o->lean_azimuth);
	/* only a scene with a crack keys it: the other scenes keep their files */
	if (o->crack_width > 0) {
		const double d3[] = {o->crack_width, o->crack_depth, o->crack_angle, o->crack_offset};
		for (size_t i = 0; i < sizeof d3 / sizeof d3[0]; i++)
			put_f64(b, d3[i]);
	}
	/* the cap only when there is one: every key before it, and so every
	 * cached render, stays what it was */
	if (o->cap != 0) {
		put_f64(b, o->cap);
		put_f64(b, o->cap_power);
	}
	/* the domes' common shift (h39d) likewise only when there is one */
	if (o->shift_x != 0 || o->shift_y != 0) {
		put_f64(b, o->shift_x);
		put_f64(b, o->shift_y);
	}
	/* the continuous beam (h40s) likewise only when it is on */
	if (o->beam_continuous) {
		put_i32(b, 0x6265616d); /* "beam": no other key's tail can read the same */
		put_i32(b, o->beam_continuous);
	}
	/* the smooth foot's power (h42h) likewise only when it is set */
	if (o->foot_power != 0 || o->foot_stretch != 0) {
		put_i32(b, 0x666f6f74); /* "foot" */
		put_f64(b, o->foot_power);
		put_f64(b, o->foot_stretch);
		put_f64(b, o->foot_from);
	}
}

/* FNV-1a, 64 bits: the file name from the key and the payload's checksum. */
static uint64_t fnv(const unsigned char *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

int sem_cache_path(const char *dir, const sem_opts *o, char *path, size_t len)
{
	buf k = {.ok = 1};
	key(&k, o);
	if (!k.ok) {
		free(k.p);
		return -1;
	}
	int n = snprintf(path, len, "%s/scene-v%d-%016llx.sem", dir, SEM_CACHE_VERSION,
			 (unsigned long long)fnv(k.p, k.n));
	free(k.p);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The file: magic, version, key length, key, the image (size, pixels),
 * the truth (counts, arrays, region, pitch, size), then the checksum of
 * all that. */
static int encode(buf *b, const sem_opts *o, const fs_image *img, const sem_truth *t)
{
	buf k = {.ok = 1};
	key(&k, o);
	put(b, MAGIC, sizeof MAGIC);
	put_i32(b, SEM_CACHE_VERSION);
	put_i32(b, (int32_t)k.n);
	put(b, k.p, k.ok ? k.n : 0);
	b->ok &= k.ok;
	free(k.p);
	put_i32(b, img->width);
	put_i32(b, img->height);
	put(b, img->data, (size_t)img->width * img->height * sizeof *img->data);
	put_u64(b, t->n);
	put_u64(b, t->n_pairs);
	put(b, t->x, t->n * sizeof *t->x);
	put(b, t->y, t->n * sizeof *t->y);
	put(b, t->d, t->n * sizeof *t->d);
	put(b, t->inside, t->n * sizeof *t->inside);
	put(b, t->pi, t->n_pairs * sizeof *t->pi);
	put(b, t->pj, t->n_pairs * sizeof *t->pj);
	put(b, t->space, t->n_pairs * sizeof *t->space);
	const double reg[] = {t->rx0, t->ry0, t->rx1, t->ry1, t->pitch};
	put(b, reg, sizeof reg);
	put_i32(b, t->width);
	put_i32(b, t->height);
	if (b->ok)
		put_u64(b, fnv(b->p, b->n));
	return b->ok ? 0 : -1;
}

/* A reader over a file's bytes; ok turns 0 when one reads past the end. */
typedef struct rd {
	const unsigned char *p;
	size_t n, at;
	int ok;
} rd;

static void get(rd *r, void *v, size_t len)
{
	if (!r->ok || len > r->n - r->at) {
		r->ok = 0;
		return;
	}
	memcpy(v, r->p + r->at, len);
	r->at += len;
}

/* An array of count items of size sz from r (malloc'd; count may be 0). */
static void *get_array(rd *r, uint64_t count, size_t sz)
{
	if (!r->ok || count > (r->n - r->at) / sz) {
		r->ok = 0;
		return NULL;
	}
	void *v = malloc(count * sz + 1);
	if (!v) {
		r->ok = 0;
		return NULL;
	}
	get(r, v, count * sz);
	return v;
}

/* The scene from the bytes p (n) when they are a whole file of o's key
 * and version; else NULL (t empty). */
static fs_image *decode(const unsigned char *p, size_t n, const sem_opts *o, sem_truth *t)
{
	memset(t, 0, sizeof *t);
	if (n < sizeof MAGIC + 8 + 8)
		return NULL;
	uint64_t sum;
	memcpy(&sum, p + n - 8, 8);
	if (sum != fnv(p, n - 8))
		return NULL;
	rd r = {p, n - 8, 0, 1};
	char magic[8];
	int32_t ver = 0, klen = 0, w = 0, h = 0;
	get(&r, magic, sizeof magic);
	get(&r, &ver, sizeof ver);
	get(&r, &klen, sizeof klen);
	buf k = {.ok = 1};
	key(&k, o);
	int same = r.ok && k.ok && !memcmp(magic, MAGIC, sizeof MAGIC) && ver == SEM_CACHE_VERSION &&
		   klen == (int32_t)k.n && k.n <= r.n - r.at && !memcmp(r.p + r.at, k.p, k.n);
	free(k.p);
	if (!same)
		return NULL;
	r.at += (size_t)klen;
	get(&r, &w, sizeof w);
	get(&r, &h, sizeof h);
	if (!r.ok || w < 1 || h < 1 || (uint64_t)w * (uint64_t)h > (r.n - r.at) / sizeof(float))
		return NULL;
	fs_image *img = fs_image_new(w, h);
	if (!img)
		return NULL;
	get(&r, img->data, (size_t)w * h * sizeof *img->data);
	uint64_t nt = 0, np = 0;
	get(&r, &nt, sizeof nt);
	get(&r, &np, sizeof np);
	t->x = get_array(&r, nt, sizeof *t->x);
	t->y = get_array(&r, nt, sizeof *t->y);
	t->d = get_array(&r, nt, sizeof *t->d);
	t->inside = get_array(&r, nt, sizeof *t->inside);
	t->pi = get_array(&r, np, sizeof *t->pi);
	t->pj = get_array(&r, np, sizeof *t->pj);
	t->space = get_array(&r, np, sizeof *t->space);
	double reg[5] = {0};
	get(&r, reg, sizeof reg);
	get(&r, &t->width, sizeof t->width);
	get(&r, &t->height, sizeof t->height);
	t->n = (size_t)nt;
	t->n_pairs = (size_t)np;
	t->rx0 = reg[0];
	t->ry0 = reg[1];
	t->rx1 = reg[2];
	t->ry1 = reg[3];
	t->pitch = reg[4];
	if (!r.ok || r.at != r.n) {
		sem_truth_free(t);
		fs_image_free(img);
		return NULL;
	}
	return img;
}

/* The scene from path, or NULL when it is missing or not o's whole file. */
static fs_image *load(const char *path, const sem_opts *o, sem_truth *t)
{
	memset(t, 0, sizeof *t);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	fs_image *img = NULL;
	unsigned char *p = NULL;
	if (fstat(fd, &st) == 0 && st.st_size > 0 && (p = malloc((size_t)st.st_size))) {
		size_t got = 0;
		while (got < (size_t)st.st_size) {
			ssize_t k = read(fd, p + got, (size_t)st.st_size - got);
			if (k <= 0)
				break;
			got += (size_t)k;
		}
		if (got == (size_t)st.st_size)
			img = decode(p, got, o, t);
	}
	free(p);
	close(fd);
	return img;
}

/* Writes the scene to a temporary file beside path and renames it over
 * path, so that readers see the whole file or none. Best effort: a scene
 * that cannot be stored is rendered again by the next binary. */
static void store(const char *path, const sem_opts *o, const fs_image *img, const sem_truth *t)
{
	buf b = {.ok = 1};
	char tmp[4200];
	if (encode(&b, o, img, t) || snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid()) >= (int)sizeof tmp) {
		free(b.p);
		return;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		size_t done = 0;
		while (done < b.n) {
			ssize_t k = write(fd, b.p + done, b.n - done);
			if (k <= 0)
				break;
			done += (size_t)k;
		}
		int ok = done == b.n;
		if (close(fd) || !ok || rename(tmp, path))
			unlink(tmp);
	}
	free(b.p);
}

fs_image *sem_make_shared(const sem_opts *o, sem_truth *t)
{
	const char *dir = getenv("SEM_SCENE_CACHE");
	char path[4096], lock[4200];
	if (!dir || !*dir || sem_cache_path(dir, o, path, sizeof path) ||
	    snprintf(lock, sizeof lock, "%s.lock", path) >= (int)sizeof lock)
		return sem_make(o, t);
	fs_image *img = load(path, o, t);
	if (img)
		return img;
	/* Render under the scene's lock: a binary that wants the same scene
	 * meanwhile waits for this one's file instead of rendering it too. */
	int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lfd >= 0 && flock(lfd, LOCK_EX) == 0) {
		img = load(path, o, t);
		if (!img) {
			img = sem_make(o, t);
			if (img)
				store(path, o, img, t);
		}
		flock(lfd, LOCK_UN);
	} else {
		img = sem_make(o, t);
	}
	if (lfd >= 0)
		close(lfd);
	return img;
}
