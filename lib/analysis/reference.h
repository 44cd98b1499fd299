/*
 * reference.h - the published reference data (conf/reference.conf): the
 * citations, the genus ranges of mean tubercle diameter D and
 * intertubercular space S (µm) in the classifier's order of precedence, and
 * the species means of the papers' figures. The genus classifier
 * (fs_classify_genus, genus.c) and the Compare chart both read it, so there
 * is one source of the numbers.
 *
 * The file is compiled into the library at build time
 * (build/gen/fs_reference_conf.h, made by tools/gen_embed.sh);
 * fs_reference_builtin parses that text once per process.
 *
 * Ownership: fs_reference_parse fills a caller's struct whose arrays it
 * allocates; fs_reference_free releases them (tolerates a zeroed struct).
 * The builtin table lives until the process ends; pointers into it (genus
 * names) may be kept.
 */
#ifndef FS_REFERENCE_H
#define FS_REFERENCE_H

#include <stddef.h>

#include <cJSON.h>

typedef struct fs_ref_citation {
	char key[32];
	char text[512];
} fs_ref_citation;

typedef struct fs_ref_genus {
	char name[64];
	double d_min, d_max, s_min, s_max; /* µm */
	char cite[96];                     /* citation keys, comma-separated */
} fs_ref_genus;

typedef struct fs_ref_species {
	char name[96];
	char genus[64];
	double d, s; /* µm */
	char cite[96];
	char source[200]; /* figure / table in the paper */
} fs_ref_species;

typedef struct fs_reference {
	fs_ref_citation *cites;
	size_t n_cites;
	fs_ref_genus *genera; /* in precedence order: the first range that holds (D, S) wins */
	size_t n_genera;
	fs_ref_species *species;
	size_t n_species;
} fs_reference;

/*
 * Parses the text of a reference file (format: the comment at the top of
 * conf/reference.conf). Checks every line: unknown record types, missing or
 * non-numeric fields, empty or inverted ranges, negative values, a citation
 * key used before it is defined, duplicate names, an unterminated quote.
 * Returns 0, or -1 with "line N: what is wrong" in err (out is then empty).
 */
int fs_reference_parse(const char *text, fs_reference *out, char *err, size_t errlen);
void fs_reference_free(fs_reference *r);

/* The compiled-in conf/reference.conf, parsed on first use (thread-safe).
 * Never NULL; when the compiled-in text does not parse (a unit test guards
 * against it) the table is empty and fs_reference_builtin_error says why. */
const fs_reference *fs_reference_builtin(void);
const char *fs_reference_builtin_error(void); /* "" when it parsed */

const fs_ref_citation *fs_reference_cite(const fs_reference *r, const char *key);
const fs_ref_genus *fs_reference_genus(const fs_reference *r, const char *name);

/*
 * The classifier: the first genus (in file order) whose ranges hold both D
 * and S -> "high"; otherwise the nearest range by the normalised distance
 * |D - Dmid| / (Dmax - Dmin) + |S - Smid| / (Smax - Smin): < 1.5 "medium",
 * < 3 "low", else "Unknown" / "none". Non-finite input: "Unknown" / "none".
 * *genus points into r (or is the static "Unknown").
 */
void fs_reference_classify(const fs_reference *r, double d_um, double s_um, const char **genus,
			   const char **confidence);

/* One sentence naming the precedence ("Lepisosteus, then Atractosteus, ...")
 * into out. */
void fs_reference_precedence_text(const fs_reference *r, char *out, size_t outlen);

/* {citations: [{key, text}], genera: [{name, precedence, d_min, d_max, s_min,
 * s_max, cite: [keys]}], species: [{name, genus, d, s, fill_ratio, cite,
 * source}], precedence} (caller deletes; NULL on out of memory). */
cJSON *fs_reference_to_json(const fs_reference *r);

#endif
