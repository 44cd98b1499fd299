/*
 * auth.h - who is asking: the client address through trusted proxies,
 * HTTPS detection, the session cookie, single sign-on by a trusted proxy's
 * header, and the CSRF checks for unsafe methods.
 */
#ifndef FS_AUTH_H
#define FS_AUTH_H

#include "app/http.h"

#define FS_SESSION_COOKIE "fs_session"
#define FS_LOGIN_CSRF_COOKIE "fs_login_csrf"

/* Fills r->client_addr, r->https and r->from_trusted_proxy. */
void fs_auth_client(fs_req *r);

/* Reads the session cookie (or SSO header); sets r->authed and r->user.
 * Returns 0 or an fs_db_rc for a storage error. May add a Set-Cookie. */
int fs_auth_session(fs_req *r, fs_resp *w);

/* 1 when Sec-Fetch-Site / Origin show a same-origin request (or carry no
 * such header, as non-browser clients do); 0 for cross-site. */
int fs_auth_same_origin(const fs_req *r);

/* The CSRF token sent with the request (X-CSRF-Token header or csrf_token
 * form/JSON field), or NULL. */
const char *fs_auth_sent_csrf(const fs_req *r);

/* Creates a session for user_id and sets its cookie. */
int fs_auth_login(fs_req *r, fs_resp *w, long long user_id);

#endif
