/*
 * cli_user.c - `fishscale init`, `fishscale user ...` and `fishscale config
 * ...`: account management and configuration from the command line.
 *
 * Passwords are never taken from the command line (they would show in ps
 * and shell history): they are read from standard input when it is not a
 * terminal, otherwise generated and printed once.
 */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "store/store.h"
#include "base/base.h"

static int open_app(fs_app *app, const char *root)
{
	char err[512];
	if (fs_app_config(app, root, NULL, err, sizeof err) || fs_app_open(app, 0, err, sizeof err)) {
		fprintf(stderr, "fishscale: %s\n", err);
		return -1;
	}
	return 0;
}

/* A password from stdin (first line) when piped, else a generated one. */
static int get_password(char *pw, size_t n, int *generated)
{
	*generated = 0;
	if (!isatty(STDIN_FILENO)) {
		if (!fgets(pw, (int)n, stdin))
			pw[0] = 0;
		pw[strcspn(pw, "\r\n")] = 0;
		if (pw[0])
			return 0;
	}
	*generated = 1;
	return fs_password_generate(pw, 20);
}

/* Writes the first admin password to a 0600 file so that it survives the
 * terminal; O_EXCL so an existing file (maybe a symlink) is never followed. */
static int write_secret_file(const fs_app *app, const char *login, const char *pw)
{
	char path[1300];
	if (fs_app_data_path(app, "admin-password.txt", path, sizeof path))
		return -1;
	unlink(path);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	if (fd < 0) {
		fprintf(stderr, "fishscale: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	char line[256];
	int len = snprintf(line, sizeof line, "login: %s\npassword: %s\n", login, pw);
	int ok = write(fd, line, (size_t)len) == len && fsync(fd) == 0;
	close(fd);
	return ok ? 0 : -1;
}

int fs_cli_init(const char *root, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fs_app app;
	if (open_app(&app, root))
		return 1;
	char serr[512];
	fs_config_sso_warning(&app.cfg, serr, sizeof serr);
	if (serr[0])
		fprintf(stderr, "fishscale: %s\n", serr);
	if (fs_app_secure_data_dir(&app, serr, sizeof serr)) {
		fprintf(stderr, "fishscale: %s\n", serr);
		fs_app_close(&app);
		return 1;
	}
	long long n = 0;
	int rc = fs_user_count(app.db, &n);
	if (rc) {
		fprintf(stderr, "fishscale: cannot count users: %s\n", fs_db_errmsg(app.db));
		fs_app_close(&app);
		return 1;
	}
	if (n == 0) {
		char pw[21], err[256];
		if (fs_password_generate(pw, 20) ||
		    fs_user_create(app.db, "admin", "Administrator", 1, pw, NULL, err, sizeof err)) {
			fprintf(stderr, "fishscale: cannot create the admin account\n");
			fs_app_close(&app);
			return 1;
		}
		write_secret_file(&app, "admin", pw);
		char path[1300];
		fs_app_data_path(&app, "admin-password.txt", path, sizeof path);
		printf("First login: admin / %s\n(also written to %s, mode 0600)\n", pw, path);
	}
	fs_app_close(&app);
	return 0;
}

static int user_usage(void)
{
	fprintf(stderr, "usage: fishscale user add LOGIN [--admin] [--name DISPLAY_NAME]\n"
			"       fishscale user passwd LOGIN\n"
			"       fishscale user list\n"
			"       fishscale user disable LOGIN\n"
			"       fishscale user enable LOGIN\n"
			"Passwords are read from standard input when it is not a terminal;\n"
			"otherwise a random one is generated and printed once.\n");
	return 2;
}

static int print_user(const fs_user *u, void *ud)
{
	(void)ud;
	printf("%-24s %-7s %-9s %s\n", u->login, u->is_admin ? "admin" : "member", u->disabled ? "disabled" : "active",
	       u->display_name);
	return 0;
}

int fs_cli_user(const char *root, int argc, char **argv)
{
	if (argc < 2)
		return user_usage();
	const char *cmd = argv[1];
	fs_app app;
	int status = 1;
	if (!strcmp(cmd, "list")) {
		if (open_app(&app, root))
			return 1;
		printf("%-24s %-7s %-9s %s\n", "LOGIN", "ROLE", "STATE", "NAME");
		status = fs_user_each(app.db, print_user, NULL) ? 1 : 0;
		fs_app_close(&app);
		return status;
	}
	if (argc < 3)
		return user_usage();
	const char *login = argv[2];
	if (!strcmp(cmd, "add")) {
		int admin = 0;
		const char *name = NULL;
		for (int i = 3; i < argc; i++) {
			if (!strcmp(argv[i], "--admin"))
				admin = 1;
			else if (!strcmp(argv[i], "--name") && i + 1 < argc)
				name = argv[++i];
			else
				return user_usage();
		}
		char pw[300], err[256];
		int gen;
		if (get_password(pw, sizeof pw, &gen))
			return 1;
		if (open_app(&app, root))
			return 1;
		if (fs_user_create(app.db, login, name, admin, pw, NULL, err, sizeof err)) {
			fprintf(stderr, "fishscale: %s\n", err);
		} else {
			printf("created %s (%s)\n", login, admin ? "admin" : "member");
			if (gen)
				printf("password: %s\n", pw);
			status = 0;
		}
		explicit_bzero(pw, sizeof pw);
		fs_app_close(&app);
		return status;
	}
	if (open_app(&app, root))
		return 1;
	fs_user u;
	int rc = fs_user_get_by_login(app.db, login, &u);
	if (rc) {
		fprintf(stderr, "fishscale: no user '%s'\n", login);
		fs_app_close(&app);
		return 1;
	}
	if (!strcmp(cmd, "passwd")) {
		char pw[300], err[256];
		int gen;
		if (get_password(pw, sizeof pw, &gen) == 0) {
			if (fs_user_set_password(app.db, u.id, pw, err, sizeof err)) {
				fprintf(stderr, "fishscale: %s\n", err);
			} else {
				fs_session_delete_user(app.db, u.id);
				printf("password of %s changed; sessions ended\n", login);
				if (gen)
					printf("password: %s\n", pw);
				status = 0;
			}
		}
		explicit_bzero(pw, sizeof pw);
	} else if (!strcmp(cmd, "disable") || !strcmp(cmd, "enable")) {
		int dis = !strcmp(cmd, "disable");
		if (fs_user_set_disabled(app.db, u.id, dis)) {
			fprintf(stderr, "fishscale: %s\n", fs_db_errmsg(app.db));
		} else {
			printf("%s %s\n", login, dis ? "disabled" : "enabled");
			status = 0;
		}
	} else {
		status = user_usage();
	}
	fs_app_close(&app);
	return status;
}

int fs_cli_config(const char *root, int argc, char **argv)
{
	fs_app app;
	char err[512];
	if (fs_app_config(&app, root, NULL, err, sizeof err)) {
		fprintf(stderr, "fishscale: %s\n", err);
		return 1;
	}
	char val[1024];
	if (argc == 3 && !strcmp(argv[1], "get")) {
		if (!strcmp(argv[2], "data_path")) {
			/* the data directory resolved against the root, for scripts */
			fs_app_data_path(&app, "", val, sizeof val);
			val[strlen(val) - 1] = 0;
			printf("%s\n", val);
			return 0;
		}
		if (fs_config_get(&app.cfg, argv[2], val, sizeof val)) {
			fprintf(stderr, "fishscale: unknown key '%s'\n", argv[2]);
			return 1;
		}
		printf("%s\n", val);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "list")) {
		size_t n;
		const fs_config_key *k = fs_config_keys(&n);
		for (size_t i = 0; i < n; i++) {
			fs_config_get(&app.cfg, k[i].name, val, sizeof val);
			printf("%s = %s\n", k[i].name, val);
		}
		return 0;
	}
	fprintf(stderr, "usage: fishscale config get KEY | fishscale config list\n");
	return 2;
}
