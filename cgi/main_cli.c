/*
 * main_cli.c - `fishscale`: the command-line tool. A thin dispatcher to
 * the subcommands in cgi/cli/cli_*.c.
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "app/app.h"
#include "cli/cli.h"
#include "cli/cli_agent.h"
#include "cli/cli_chart.h"
#include "cli/cli_measure.h"
#include "cli/cli_mcp.h"

static char root[PATH_MAX];

static void find_root(const char *argv0)
{
	const char *env = getenv("FISHSCALE_ROOT");
	if (env && *env) {
		snprintf(root, sizeof root, "%s", env);
		return;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0) {
		snprintf(exe, sizeof exe, "%s", argv0);
		n = (ssize_t)strlen(exe);
	}
	exe[n] = 0;
	/* <root>/build/fishscale -> <root> */
	char *d = dirname(exe);
	snprintf(root, sizeof root, "%s/..", d);
	char real[PATH_MAX];
	if (realpath(root, real))
		snprintf(root, sizeof root, "%s", real);
}

static int usage(FILE *f)
{
	fprintf(f, "usage: fishscale COMMAND [ARGS]\n\n"
		   "commands:\n"
		   "  init                     create the data directory, database and first admin account\n"
		   "  user add|passwd|list|disable|enable ...   manage accounts\n"
		   "  config get KEY | list    show the configuration (file + environment)\n"
		   "  measure [OPTIONS] IMAGE...  detect tubercles and write CSV/JSON statistics\n"
		   "                           (fishscale measure --help for the options)\n"
		   "  chart [--group LABEL=FILE]... TUBERCLES.csv... -o chart.svg|png|csv\n"
		   "                           the Compare chart of measure's CSVs (chart --help)\n"
		   "  agent optimize|edit IMAGE [OPTIONS]  run an agent on an image without the server\n"
		   "  agent providers          LLM providers, models, prices, configured keys\n"
		   "  mcp IMAGE | mcp --image ID --set ID --user LOGIN   MCP server on stdio\n"
		   "  version                  print the version and library versions\n"
		   "  help                     this text\n");
	return f == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
	fs_app_umask(); /* before anything is created: see app.h */
	find_root(argv[0]);
	fs_heap_keep_images();
	if (argc < 2)
		return usage(stderr);
	const char *cmd = argv[1];
	if (!strcmp(cmd, "init"))
		return fs_cli_init(root, argc - 1, argv + 1);
	if (!strcmp(cmd, "user"))
		return fs_cli_user(root, argc - 1, argv + 1);
	if (!strcmp(cmd, "measure"))
		return fs_cli_measure(argc - 1, argv + 1);
	if (!strcmp(cmd, "chart"))
		return fs_cli_chart(argc - 1, argv + 1);
	if (!strcmp(cmd, "config"))
		return fs_cli_config(root, argc - 1, argv + 1);
	if (!strcmp(cmd, "agent"))
		return fs_cli_agent(root, argc - 1, argv + 1);
	if (!strcmp(cmd, "mcp"))
		return fs_cli_mcp(root, argc - 1, argv + 1);
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		cJSON *v = fs_version_json();
		char *s = v ? cJSON_Print(v) : NULL;
		if (s)
			printf("%s\n", s);
		cJSON_free(s);
		cJSON_Delete(v);
		return 0;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
		return usage(stdout);
	fprintf(stderr, "fishscale: unknown command '%s'\n", cmd);
	return usage(stderr);
}
