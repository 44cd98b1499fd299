/*
 * cli_measure.h - `fishscale measure`: detection, neighbour graph,
 * statistics and CSV/JSON (and optional overlay PNG) output for a batch of
 * images. `fishscale measure --help` documents every option.
 */
#ifndef FS_CLI_MEASURE_H
#define FS_CLI_MEASURE_H

/*
 * argv[0] is "measure". Returns the exit status: 0 when every image was
 * measured, 1 when at least one failed (the others are still processed
 * and a message per failure goes to stderr), 2 on a usage error.
 */
int fs_cli_measure(int argc, char **argv);

#endif
