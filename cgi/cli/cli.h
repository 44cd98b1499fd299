/*
 * cli.h - the subcommands of the `fishscale` command-line tool; each takes
 * argc/argv starting at its own name and returns the exit status.
 */
#ifndef FS_CLI_H
#define FS_CLI_H

/* root: where templates/, static/ and conf/ live ($FISHSCALE_ROOT or the
 * parent of the directory holding the executable's build/), found by main. */
int fs_cli_init(const char *root, int argc, char **argv);
int fs_cli_user(const char *root, int argc, char **argv);
int fs_cli_config(const char *root, int argc, char **argv);

#endif
