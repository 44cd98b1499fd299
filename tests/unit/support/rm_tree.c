/* rm_tree.c - see rm_tree.h. */
#include "rm_tree.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int test_rm_tree(const char *path)
{
	struct stat sb;
	if (lstat(path, &sb))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(sb.st_mode))
		return unlink(path) ? -1 : 0;
	int rc = 0;
	DIR *d = opendir(path);
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char p[4096];
		if (snprintf(p, sizeof p, "%s/%s", path, e->d_name) >= (int)sizeof p || test_rm_tree(p))
			rc = -1;
	}
	closedir(d);
	return rmdir(path) || rc ? -1 : 0;
}
