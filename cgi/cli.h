/*
 * cli.h - the subcommands of the `fishscale` command-line tool; each takes
 * argc/argv starting at its own name and returns the exit status.
 */
#ifndef FS_CLI_H
#define FS_CLI_H

/* Where templates/, static/ and conf/ live ($FISHSCALE_ROOT or the parent
 * of the directory holding the executable's build/). */
const char *fs_cli_root(void);

int fs_cli_init(int argc, char **argv);
int fs_cli_user(int argc, char **argv);
int fs_cli_config(int argc, char **argv);

#endif
