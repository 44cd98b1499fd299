/*
 * cli_chart.h - `fishscale chart`: the Compare chart (diameter against
 * space with the published reference data, fill ratio and hexagonalness,
 * distributions) of the per-image CSVs of `fishscale measure`, written as
 * SVG or PNG, or the table as CSV. `fishscale chart --help` documents it.
 */
#ifndef FS_CLI_CHART_H
#define FS_CLI_CHART_H

/* argv[0] is "chart". Returns the exit status: 0 written, 1 an input could
 * not be read or the output written (a message on stderr), 2 usage error. */
int fs_cli_chart(int argc, char **argv);

#endif
