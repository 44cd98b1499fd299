/*
 * template.h - HTML templates (the templates/ directory) compiled once into node
 * trees and rendered against a cJSON context, escaping by context.
 *
 * Syntax:
 *   {{ path }}            value from the context (dotted: user.name, items.0,
 *                         loop variables, loop.index/index0/first/last/length).
 *                         Strings as-is, integral numbers without decimals,
 *                         other numbers %g, true/false, null/missing/objects
 *                         empty. Escaped according to where it stands, decided
 *                         at parse time by tracking the HTML around it:
 *                           HTML text, comment     -> fs_esc_html
 *                           quoted attribute value -> fs_esc_attr
 *                           start of a quoted href/src/action/formaction/
 *                           poster value           -> fs_esc_url_attr
 *                           quoted JS string in <script> or on*="" -> fs_esc_js_string
 *                         and refused (parse error): <style> or style="",
 *                         unquoted attribute values, inside a tag outside a
 *                         value, JavaScript outside a quoted string.
 *   {{ path|raw }}        unescaped (the only way; allowed anywhere).
 *   {{ path|url }}        fs_esc_url_component (query values inside an href).
 *   {% if c %} {% elif c %} {% else %} {% endif %}
 *                         c is `path`, `not path`, `path == "lit"`,
 *                         `path != "lit"` (values compared as printed; the
 *                         literal may also be a bare number). null, false, 0,
 *                         "", [] and {} are false. Every branch must end in the
 *                         HTML context it started in.
 *   {% for x in path %} ... {% endfor %}   over an array (anything else: no
 *                         iterations); nests; loop.* refers to the innermost.
 *   {% include "name.html" %}              same context; only in HTML text.
 *   {% extends "base.html" %}              first tag of a page, which then only
 *                         holds {% block n %}...{% endblock %} (overriding the
 *                         base's blocks of the same name; multi-level works).
 *   {% block n %}default{% endblock [n] %} only in HTML text.
 *   {# comment #}
 * Unknown paths render empty; unknown tags, unclosed blocks, unknown
 * include/extends targets and include/extends cycles are load errors with
 * "file:line: message".
 *
 * Limitation: the JavaScript tracker knows strings and comments but not
 * regular expression literals; avoid quotes inside regex literals in
 * templates that interpolate into <script>.
 *
 * Ownership: the set owns its templates; fs_tmpl_free releases it
 * (tolerates NULL). Rendering never modifies the set, so one set can be
 * shared read-only by any number of renders. The caller owns ctx and out.
 */
#ifndef FS_TEMPLATE_H
#define FS_TEMPLATE_H

#include <stddef.h>

#include <cJSON.h>

#include "base/buf.h"

typedef struct fs_tmpl_set fs_tmpl_set;

/* Parses every regular *.html file in dir (not recursive) and links them.
 * NULL + message (file:line: ...) on any error. */
fs_tmpl_set *fs_tmpl_load_dir(const char *dir, char *err, size_t errlen);

/* An empty set; add templates with fs_tmpl_add, then call fs_tmpl_link. */
fs_tmpl_set *fs_tmpl_new(void);

/* Parses src[0..len) as template `name`; -1 + message on a syntax error or
 * a duplicate name (the set is unchanged then). */
int fs_tmpl_add(fs_tmpl_set *s, const char *name, const char *src, size_t len,
		char *err, size_t errlen);

/* Checks that every include/extends target exists and that there is no
 * cycle. -1 + message otherwise. */
int fs_tmpl_link(const fs_tmpl_set *s, char *err, size_t errlen);

void fs_tmpl_free(fs_tmpl_set *s);

/* 1 if the set holds a template of that name. */
int fs_tmpl_has(const fs_tmpl_set *s, const char *name);

/* Renders template `name` with ctx (may be NULL) appending to out. -1 +
 * message on an unknown template, nesting too deep or out of memory (out
 * then holds a partial page: discard it). */
int fs_tmpl_render(const fs_tmpl_set *s, const char *name, const cJSON *ctx,
		   fs_buf *out, char *err, size_t errlen);

#endif
