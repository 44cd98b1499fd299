/* template.c - context-escaping HTML template engine (see template.h). */
#include "web/template.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "web/escape.h"

#define MAX_FILE_BYTES (4u << 20)
#define MAX_SEGS 8
#define MAX_NEST 64	/* tag nesting inside one file */
#define MAX_DEPTH 16	/* include/extends nesting at render time */

enum esc { ESC_HTML, ESC_ATTR, ESC_URL_ATTR, ESC_JS, ESC_URL, ESC_RAW };
enum nkind { N_TEXT, N_EXPR, N_IF, N_FOR, N_INCLUDE, N_BLOCK };
enum ckind { C_TRUTHY, C_NOT, C_EQ, C_NE, C_ELSE };

struct path {
	char *mem;
	const char *seg[MAX_SEGS];
	int n;
};

struct node;

struct branch {
	int kind;
	struct path path;
	char *lit;
	struct node *body;
	struct branch *next;
};

struct node {
	int kind, line;
	struct node *next;
	char *text;		/* TEXT bytes; INCLUDE target; BLOCK name; FOR var */
	size_t len;
	struct path path;	/* EXPR, FOR */
	int esc;		/* EXPR */
	struct branch *br;	/* IF */
	struct node *body;	/* FOR, BLOCK */
};

struct tmpl {
	char *name;
	char *extends;
	int extends_line;
	struct node *root;
	struct tmpl *next;
};

struct fs_tmpl_set {
	struct tmpl *list;
};

/* ---- HTML context tracking ------------------------------------------ */

enum hstate {
	H_TEXT, H_LT, H_LT_SLASH, H_LT_BANG, H_LT_BANG_DASH, H_TAG_NAME,
	H_CLOSE_TAG, H_IN_TAG, H_ATTR_NAME, H_AFTER_ATTR, H_BEFORE_VAL,
	H_VAL_DQ, H_VAL_SQ, H_VAL_UNQ, H_COMMENT, H_DECL, H_SCRIPT, H_STYLE,
};
enum { A_PLAIN, A_URL, A_JS, A_STYLE };
enum { J_CODE, J_SQ, J_DQ, J_BT, J_SLASH, J_LINE, J_BLOCK, J_BLOCK_STAR };

/* Only unsigned chars: no padding, so memcmp compares contexts. Every
 * transition resets the fields the new state does not use. */
struct hctx {
	unsigned char st, attr, js, js_esc, value_empty, dashes, endmatch, name_len;
	char name[24];
};

static const char *const state_names[] = {
	"HTML text", "a tag", "an end tag", "markup", "markup", "a tag name",
	"an end tag", "a tag", "an attribute name", "a tag", "an attribute",
	"a quoted attribute value", "a quoted attribute value",
	"an unquoted attribute value", "an HTML comment", "markup",
	"<script>", "<style>",
};

_Static_assert(sizeof(state_names) / sizeof(*state_names) == H_STYLE + 1,
	       "one name per HTML state");

static void hc_set(struct hctx *h, int st)
{
	memset(h, 0, sizeof(*h));
	h->st = (unsigned char)st;
}

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static void name_add(struct hctx *h, int c)
{
	if (h->name_len < sizeof(h->name) - 1)
		h->name[h->name_len++] = (char)tolower(c);
}

static void end_start_tag(struct hctx *h)
{
	int script = strcmp(h->name, "script") == 0;
	int style = strcmp(h->name, "style") == 0;
	hc_set(h, script ? H_SCRIPT : style ? H_STYLE : H_TEXT);
}

/* Leaving an attribute value or name keeps the element name for '>'. */
static void back_in_tag(struct hctx *h, const char *tag)
{
	hc_set(h, H_IN_TAG);
	snprintf(h->name, sizeof(h->name), "%s", tag);
	h->name_len = (unsigned char)strlen(h->name);
}

static int attr_kind(const char *n)
{
	static const char *const url[] = {"href", "src", "action", "formaction",
					  "poster", "cite", "background", "xlink:href"};
	if (n[0] == 'o' && n[1] == 'n')
		return A_JS;
	if (strcmp(n, "style") == 0)
		return A_STYLE;
	for (size_t i = 0; i < sizeof(url) / sizeof(*url); i++)
		if (strcmp(n, url[i]) == 0)
			return A_URL;
	return A_PLAIN;
}

static void js_feed(struct hctx *h, int c)
{
	switch (h->js) {
	case J_SLASH:
		if (c == '/') {
			h->js = J_LINE;
			return;
		}
		if (c == '*') {
			h->js = J_BLOCK;
			return;
		}
		h->js = J_CODE;
		/* fall through */
	case J_CODE:
		if (c == '\'')
			h->js = J_SQ;
		else if (c == '"')
			h->js = J_DQ;
		else if (c == '`')
			h->js = J_BT;
		else if (c == '/')
			h->js = J_SLASH;
		return;
	case J_SQ:
	case J_DQ:
	case J_BT:
		if (h->js_esc) {
			h->js_esc = 0;
		} else if (c == '\\') {
			h->js_esc = 1;
		} else if ((c == '\'' && h->js == J_SQ) || (c == '"' && h->js == J_DQ) ||
			   (c == '`' && h->js == J_BT) || (c == '\n' && h->js != J_BT)) {
			h->js = J_CODE;
		}
		return;
	case J_LINE:
		if (c == '\n')
			h->js = J_CODE;
		return;
	case J_BLOCK:
		if (c == '*')
			h->js = J_BLOCK_STAR;
		return;
	case J_BLOCK_STAR:
		h->js = c == '/' ? J_CODE : c == '*' ? J_BLOCK_STAR : J_BLOCK;
		return;
	}
}

/* The element name is kept in name while in the tag but is overwritten by
 * attribute names; tag_name remembers it for the closing '>'. */
static void hc_feed(struct hctx *h, char *tag_name, size_t tag_cap, int c)
{
	int lc = tolower(c);
	const char *closer;

	switch (h->st) {
	case H_TEXT:
		if (c == '<')
			hc_set(h, H_LT);
		break;
	case H_LT:
		if (isalpha(c)) {
			hc_set(h, H_TAG_NAME);
			name_add(h, c);
		} else if (c == '/') {
			hc_set(h, H_LT_SLASH);
		} else if (c == '!') {
			hc_set(h, H_LT_BANG);
		} else if (c == '?') {
			hc_set(h, H_DECL);
		} else if (c != '<') {
			hc_set(h, H_TEXT);
		}
		break;
	case H_LT_SLASH:
		hc_set(h, isalpha(c) ? H_CLOSE_TAG : c == '>' ? H_TEXT : H_DECL);
		break;
	case H_LT_BANG:
		hc_set(h, c == '-' ? H_LT_BANG_DASH : c == '>' ? H_TEXT : H_DECL);
		break;
	case H_LT_BANG_DASH:
		hc_set(h, c == '-' ? H_COMMENT : c == '>' ? H_TEXT : H_DECL);
		break;
	case H_CLOSE_TAG:
	case H_DECL:
		if (c == '>')
			hc_set(h, H_TEXT);
		break;
	case H_COMMENT:
		if (c == '>' && h->dashes >= 2)
			hc_set(h, H_TEXT);
		else if (c == '-')
			h->dashes = h->dashes < 2 ? h->dashes + 1 : 2;
		else
			h->dashes = 0;
		break;
	case H_TAG_NAME:
		if (is_space(c) || c == '/' || c == '>') {
			snprintf(tag_name, tag_cap, "%s", h->name);
			if (c == '>') {
				end_start_tag(h);
			} else {
				back_in_tag(h, tag_name);
			}
		} else {
			name_add(h, c);
		}
		break;
	case H_IN_TAG:
	case H_AFTER_ATTR:
		if (c == '>') {
			back_in_tag(h, tag_name);
			end_start_tag(h);
		} else if (c == '=' && h->st == H_AFTER_ATTR) {
			int k = attr_kind(h->name);
			hc_set(h, H_BEFORE_VAL);
			h->attr = (unsigned char)k;
		} else if (c == '/' || is_space(c)) {
			/* stay */
		} else {
			hc_set(h, H_ATTR_NAME);
			name_add(h, lc);
		}
		break;
	case H_ATTR_NAME:
		if (c == '=') {
			int k = attr_kind(h->name);
			hc_set(h, H_BEFORE_VAL);
			h->attr = (unsigned char)k;
		} else if (is_space(c)) {
			char keep[sizeof(h->name)];
			memcpy(keep, h->name, sizeof(keep));
			hc_set(h, H_AFTER_ATTR);
			memcpy(h->name, keep, sizeof(keep));
			h->name_len = (unsigned char)strlen(keep);
		} else if (c == '>') {
			back_in_tag(h, tag_name);
			end_start_tag(h);
		} else if (c == '/') {
			back_in_tag(h, tag_name);
		} else {
			name_add(h, lc);
		}
		break;
	case H_BEFORE_VAL:
		if (c == '"' || c == '\'') {
			h->st = c == '"' ? H_VAL_DQ : H_VAL_SQ;
			h->value_empty = 1;
		} else if (c == '>') {
			back_in_tag(h, tag_name);
			end_start_tag(h);
		} else if (!is_space(c)) {
			int k = h->attr;
			hc_set(h, H_VAL_UNQ);
			h->attr = (unsigned char)k;
		}
		break;
	case H_VAL_DQ:
	case H_VAL_SQ:
		if (c == (h->st == H_VAL_DQ ? '"' : '\'')) {
			back_in_tag(h, tag_name);
		} else {
			h->value_empty = 0;
			if (h->attr == A_JS)
				js_feed(h, c);
		}
		break;
	case H_VAL_UNQ:
		if (is_space(c)) {
			back_in_tag(h, tag_name);
		} else if (c == '>') {
			back_in_tag(h, tag_name);
			end_start_tag(h);
		}
		break;
	case H_SCRIPT:
	case H_STYLE:
		closer = h->st == H_SCRIPT ? "</script" : "</style";
		if (lc == closer[h->endmatch]) {
			h->endmatch++;
			if (!closer[h->endmatch]) {
				hc_set(h, H_CLOSE_TAG);
				break;
			}
		} else {
			h->endmatch = c == '<';
		}
		if (h->st == H_SCRIPT)
			js_feed(h, c);
		break;
	}
}

/* ---- parser ------------------------------------------------------------ */

enum tok { T_EOF, T_TEXT, T_EXPR, T_TAG };

struct token {
	int type, line;
	const char *s;
	size_t len;
};

struct parser {
	const char *file, *pos, *end;
	int line, nest, child;
	struct hctx hc;
	char tag_name[24];
	struct tmpl *t;
	char *err;
	size_t errlen;
};

static int perr(struct parser *p, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct parser *p, int line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(p->err, p->errlen, "%s:%d: ", p->file, line);
	if (n >= 0 && (size_t)n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static void count_lines(struct parser *p, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '\n')
			p->line++;
}

static void trim(const char **s, size_t *n)
{
	while (*n && is_space((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && is_space((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

/* Returns 0 with the next token, or -1 on an unterminated tag. */
static int next_token(struct parser *p, struct token *t)
{
	for (;;) {
		const char *s = p->pos;
		t->line = p->line;
		if (s >= p->end) {
			t->type = T_EOF;
			return 0;
		}
		const char *m = s;
		while ((m = memchr(m, '{', (size_t)(p->end - m))) &&
		       (m + 1 >= p->end || (m[1] != '{' && m[1] != '%' && m[1] != '#')))
			m++;
		if (m != s) {
			t->type = T_TEXT;
			t->s = s;
			t->len = (size_t)((m ? m : p->end) - s);
			p->pos = s + t->len;
			count_lines(p, t->s, t->len);
			return 0;
		}
		char open = s[1];
		const char *close = open == '{' ? "}}" : open == '%' ? "%}" : "#}";
		const char *e = NULL;
		for (const char *q = s + 2; q + 1 < p->end; q++)
			if (q[0] == close[0] && q[1] == close[1]) {
				e = q;
				break;
			}
		if (!e)
			return perr(p, t->line, "unterminated '{%c'", open);
		count_lines(p, s, (size_t)(e + 2 - s));
		p->pos = e + 2;
		if (open == '#')
			continue;
		t->type = open == '{' ? T_EXPR : T_TAG;
		t->s = s + 2;
		t->len = (size_t)(e - t->s);
		trim(&t->s, &t->len);
		return 0;
	}
}

static int is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static int parse_path(struct parser *p, int line, const char *s, size_t n,
		      struct path *out)
{
	memset(out, 0, sizeof(*out));
	if (n == 0 || n > 200)
		return perr(p, line, "bad path '%.*s'", (int)(n > 40 ? 40 : n), s);
	out->mem = strndup(s, n);
	if (!out->mem)
		return perr(p, line, "out of memory");
	char *seg = out->mem;
	for (;;) {
		char *dot = strchr(seg, '.');
		if (dot)
			*dot = 0;
		int ok = *seg != 0 && out->n < MAX_SEGS;
		int digits = ok && isdigit((unsigned char)*seg);
		for (char *c = seg; ok && *c; c++)
			ok = digits ? isdigit((unsigned char)*c)
				    : (c == seg ? is_ident_start((unsigned char)*c)
						: isalnum((unsigned char)*c) || *c == '_');
		if (!ok || (digits && out->n == 0)) {
			perr(p, line, "bad path '%.*s'", (int)(n > 40 ? 40 : n), s);
			free(out->mem);
			out->mem = NULL;
			return -1;
		}
		out->seg[out->n++] = seg;
		if (!dot)
			break;
		seg = dot + 1;
	}
	return 0;
}

static void free_nodes(struct node *n);

static void free_branches(struct branch *b)
{
	while (b) {
		struct branch *next = b->next;
		free(b->path.mem);
		free(b->lit);
		free_nodes(b->body);
		free(b);
		b = next;
	}
}

static void free_nodes(struct node *n)
{
	while (n) {
		struct node *next = n->next;
		free(n->text);
		free(n->path.mem);
		free_branches(n->br);
		free_nodes(n->body);
		free(n);
		n = next;
	}
}

static struct node *new_node(struct parser *p, int kind, int line)
{
	struct node *n = calloc(1, sizeof(*n));
	if (!n)
		perr(p, line, "out of memory");
	else {
		n->kind = kind;
		n->line = line;
	}
	return n;
}

/* Decides the escaping of an expression from the current HTML context. */
static int expr_escape(struct parser *p, int line, int filter)
{
	const struct hctx *h = &p->hc;

	if (filter == ESC_RAW)
		return ESC_RAW;
	switch (h->st) {
	case H_TEXT:
	case H_COMMENT:
		return filter == ESC_URL ? ESC_URL : ESC_HTML;
	case H_VAL_DQ:
	case H_VAL_SQ:
		if (h->attr == A_STYLE)
			return perr(p, line, "expression in a style attribute is not allowed");
		if (h->attr == A_JS) {
			if ((h->js != J_SQ && h->js != J_DQ) || h->js_esc)
				return perr(p, line, "expression in an event handler must be inside a quoted JavaScript string");
			return filter == ESC_URL ? ESC_URL : ESC_JS;
		}
		if (filter == ESC_URL)
			return ESC_URL;
		return h->attr == A_URL && h->value_empty ? ESC_URL_ATTR : ESC_ATTR;
	case H_SCRIPT:
		if ((h->js != J_SQ && h->js != J_DQ) || h->js_esc)
			return perr(p, line, "expression in <script> must be inside a quoted JavaScript string");
		return filter == ESC_URL ? ESC_URL : ESC_JS;
	case H_STYLE:
		return perr(p, line, "expression inside <style> is not allowed");
	case H_BEFORE_VAL:
	case H_VAL_UNQ:
		return perr(p, line, "expression in an unquoted attribute value (add quotes)");
	default:
		return perr(p, line, "expression inside %s (only quoted attribute values are allowed)",
			    state_names[h->st]);
	}
}

static struct node *parse_expr(struct parser *p, const struct token *t)
{
	const char *s = t->s, *bar = memchr(t->s, '|', t->len);
	size_t n = bar ? (size_t)(bar - s) : t->len;
	int filter = -1, esc;
	struct node *node = NULL;

	if (bar) {
		const char *f = bar + 1;
		size_t fn = t->len - n - 1;
		trim(&f, &fn);
		if (fn == 3 && memcmp(f, "raw", 3) == 0)
			filter = ESC_RAW;
		else if (fn == 3 && memcmp(f, "url", 3) == 0)
			filter = ESC_URL;
		else {
			perr(p, t->line, "unknown filter '%.*s'", (int)(fn > 40 ? 40 : fn), f);
			return NULL;
		}
	}
	trim(&s, &n);
	esc = expr_escape(p, t->line, filter);
	if (esc < 0)
		return NULL;
	node = new_node(p, N_EXPR, t->line);
	if (!node)
		return NULL;
	node->esc = esc;
	if (parse_path(p, t->line, s, n, &node->path)) {
		free(node);
		return NULL;
	}
	return node;
}

/* Splits a tag into keyword and the rest. */
static void split_tag(const struct token *t, const char **kw, size_t *kwlen,
		      const char **rest, size_t *restlen)
{
	size_t i = 0;
	while (i < t->len && !is_space((unsigned char)t->s[i]))
		i++;
	*kw = t->s;
	*kwlen = i;
	*rest = t->s + i;
	*restlen = t->len - i;
	trim(rest, restlen);
}

static int kw_is(const char *kw, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(kw, word, n) == 0;
}

/* A "quoted" string literal (no escapes). NULL + message if malformed. */
static char *parse_quoted(struct parser *p, int line, const char *s, size_t n)
{
	char *r;
	if (n < 2 || (s[0] != '"' && s[0] != '\'') || s[n - 1] != s[0] ||
	    memchr(s + 1, s[0], n - 2)) {
		perr(p, line, "expected a quoted string, got '%.*s'", (int)(n > 40 ? 40 : n), s);
		return NULL;
	}
	r = strndup(s + 1, n - 2);
	if (!r)
		perr(p, line, "out of memory");
	return r;
}

static int parse_cond(struct parser *p, int line, const char *s, size_t n,
		      struct branch *b)
{
	const char *op = NULL;
	for (size_t i = 0; i + 1 < n; i++)
		if ((s[i] == '=' || s[i] == '!') && s[i + 1] == '=') {
			op = s + i;
			break;
		}
	if (op) {
		const char *l = s, *r = op + 2;
		size_t ln = (size_t)(op - s), rn = n - ln - 2;
		trim(&l, &ln);
		trim(&r, &rn);
		b->kind = *op == '=' ? C_EQ : C_NE;
		if (rn && (isdigit((unsigned char)*r) || *r == '-')) {
			char *end;
			char *num = strndup(r, rn);
			if (!num)
				return perr(p, line, "out of memory");
			strtod(num, &end);
			int bad = *end != 0;
			if (bad) {
				free(num);
				return perr(p, line, "bad literal '%.*s'", (int)(rn > 40 ? 40 : rn), r);
			}
			b->lit = num;
		} else if (!(b->lit = parse_quoted(p, line, r, rn))) {
			return -1;
		}
		return parse_path(p, line, l, ln, &b->path);
	}
	if (n > 4 && memcmp(s, "not", 3) == 0 && is_space((unsigned char)s[3])) {
		s += 4;
		n -= 4;
		trim(&s, &n);
		b->kind = C_NOT;
	} else {
		b->kind = C_TRUTHY;
	}
	return parse_path(p, line, s, n, &b->path);
}

struct stop {
	int idx, line;
	const char *rest;
	size_t restlen;
};

static int parse_list(struct parser *p, struct node **head,
		      const char *const *stops, struct stop *st);

static const char *ctx_name(const struct hctx *h)
{
	return state_names[h->st];
}

/*
 * Two paths through the template (if branches, loop body and its start)
 * must meet in the same context. They may differ in whether a URL value is
 * still empty; then the next expression is treated as the start of the URL
 * (stricter). Returns 0 with the merged context in *a, -1 if incompatible.
 */
static int ctx_merge(struct hctx *a, const struct hctx *b)
{
	struct hctx x = *a, y = *b;
	x.value_empty = y.value_empty = 0;
	if (memcmp(&x, &y, sizeof(x)) != 0)
		return -1;
	a->value_empty = a->value_empty || b->value_empty;
	return 0;
}

static struct node *parse_if(struct parser *p, const struct token *t,
			     const char *rest, size_t restlen)
{
	static const char *const stops[] = {"elif", "else", "endif", NULL};
	struct node *n = new_node(p, N_IF, t->line);
	struct branch **tail;
	struct hctx start = p->hc, endctx;
	int have_else = 0, first = 1;
	struct stop st = {.rest = rest, .restlen = restlen, .line = t->line, .idx = 0};

	if (!n)
		return NULL;
	tail = &n->br;
	for (;;) {
		struct branch *b = calloc(1, sizeof(*b));
		if (!b) {
			perr(p, st.line, "out of memory");
			goto err;
		}
		*tail = b;
		tail = &b->next;
		if (st.idx == 1) {
			if (st.restlen) {
				perr(p, st.line, "{%% else %%} takes no condition");
				goto err;
			}
			b->kind = C_ELSE;
			have_else = 1;
		} else if (parse_cond(p, st.line, st.rest, st.restlen, b)) {
			goto err;
		}
		p->hc = start;
		if (parse_list(p, &b->body, have_else ? stops + 2 : stops, &st))
			goto err;
		if (st.idx < 0) {
			perr(p, t->line, "{%% if %%} is not closed by {%% endif %%}");
			goto err;
		}
		if (first)
			endctx = p->hc;
		else if (ctx_merge(&endctx, &p->hc)) {
			perr(p, st.line, "branches of {%% if %%} (line %d) end in different HTML contexts (%s, %s)",
			     t->line, ctx_name(&endctx), ctx_name(&p->hc));
			goto err;
		}
		first = 0;
		if (have_else)
			st.idx = 2;
		if (st.idx == 2)
			break;
	}
	if (st.restlen) {
		perr(p, st.line, "{%% endif %%} takes no argument");
		goto err;
	}
	if (!have_else && ctx_merge(&endctx, &start)) {
		perr(p, t->line, "{%% if %%} without {%% else %%} must end in the HTML context it starts in (%s)",
		     ctx_name(&start));
		goto err;
	}
	p->hc = endctx;
	return n;
err:
	free_nodes(n);
	return NULL;
}

static struct node *parse_for(struct parser *p, const struct token *t,
			      const char *rest, size_t restlen)
{
	static const char *const stops[] = {"endfor", NULL};
	struct node *n = new_node(p, N_FOR, t->line);
	struct hctx start = p->hc;
	struct stop st;
	size_t vn = 0;

	if (!n)
		return NULL;
	while (vn < restlen && (isalnum((unsigned char)rest[vn]) || rest[vn] == '_'))
		vn++;
	const char *in = rest + vn;
	size_t inlen = restlen - vn;
	trim(&in, &inlen);
	if (vn == 0 || !is_ident_start((unsigned char)rest[0]) || inlen < 3 ||
	    memcmp(in, "in", 2) != 0 || !is_space((unsigned char)in[2])) {
		perr(p, t->line, "expected {%% for NAME in PATH %%}");
		goto err;
	}
	n->text = strndup(rest, vn);
	if (!n->text) {
		perr(p, t->line, "out of memory");
		goto err;
	}
	in += 3;
	inlen -= 3;
	trim(&in, &inlen);
	if (parse_path(p, t->line, in, inlen, &n->path))
		goto err;
	if (parse_list(p, &n->body, stops, &st))
		goto err;
	if (st.idx < 0) {
		perr(p, t->line, "{%% for %%} is not closed by {%% endfor %%}");
		goto err;
	}
	if (ctx_merge(&p->hc, &start)) {
		perr(p, st.line, "the body of {%% for %%} (line %d) must end in the HTML context it starts in (%s)",
		     t->line, ctx_name(&start));
		goto err;
	}
	return n;
err:
	free_nodes(n);
	return NULL;
}

static int require_text(struct parser *p, int line, const char *what)
{
	if (p->hc.st != H_TEXT)
		return perr(p, line, "{%% %s %%} is only allowed in HTML text, not inside %s",
			    what, ctx_name(&p->hc));
	return 0;
}

static int has_block(const struct node *n, const char *name)
{
	for (; n; n = n->next) {
		if (n->kind == N_BLOCK && strcmp(n->text, name) == 0)
			return 1;
		if (has_block(n->body, name))
			return 1;
		for (const struct branch *b = n->br; b; b = b->next)
			if (has_block(b->body, name))
				return 1;
	}
	return 0;
}

static struct node *parse_block(struct parser *p, const struct token *t,
				const char *rest, size_t restlen)
{
	static const char *const stops[] = {"endblock", NULL};
	struct node *n = NULL;
	struct stop st;

	if (require_text(p, t->line, "block"))
		return NULL;
	for (size_t i = 0; i < restlen; i++)
		if (!(isalnum((unsigned char)rest[i]) || rest[i] == '_' || rest[i] == '-'))
			restlen = 0;
	if (!restlen) {
		perr(p, t->line, "expected {%% block NAME %%}");
		return NULL;
	}
	n = new_node(p, N_BLOCK, t->line);
	if (!n)
		return NULL;
	n->text = strndup(rest, restlen);
	if (!n->text) {
		perr(p, t->line, "out of memory");
		goto err;
	}
	if (has_block(p->t->root, n->text)) {
		perr(p, t->line, "block '%s' defined twice", n->text);
		goto err;
	}
	p->nest++;
	int rc = parse_list(p, &n->body, stops, &st);
	p->nest--;
	if (rc)
		goto err;
	if (st.idx < 0) {
		perr(p, t->line, "{%% block %s %%} is not closed by {%% endblock %%}", n->text);
		goto err;
	}
	if (st.restlen && (st.restlen != strlen(n->text) ||
			   memcmp(st.rest, n->text, st.restlen) != 0)) {
		perr(p, st.line, "{%% endblock %.*s %%} closes {%% block %s %%}",
		     (int)(st.restlen > 40 ? 40 : st.restlen), st.rest, n->text);
		goto err;
	}
	if (p->hc.st != H_TEXT) {
		perr(p, st.line, "{%% block %s %%} must end in HTML text, not inside %s",
		     n->text, ctx_name(&p->hc));
		goto err;
	}
	return n;
err:
	free_nodes(n);
	return NULL;
}

static int only_space(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_space((unsigned char)s[i]))
			return 0;
	return 1;
}

static int parse_list(struct parser *p, struct node **head,
		      const char *const *stops, struct stop *st)
{
	struct node **tail = head;
	struct token t;

	while (*tail)
		tail = &(*tail)->next;
	if (++p->nest > MAX_NEST)
		return perr(p, p->line, "tags nested too deeply");
	for (;;) {
		struct node *n = NULL;
		const char *kw, *rest;
		size_t kwlen, restlen;

		if (next_token(p, &t))
			goto err;
		if (t.type == T_EOF) {
			st->idx = -1;
			break;
		}
		int top_of_child = p->child && p->nest == 1;
		if (t.type == T_TEXT) {
			if (top_of_child) {
				if (!only_space(t.s, t.len)) {
					perr(p, t.line, "text outside {%% block %%} in a template that extends another");
					goto err;
				}
				continue;
			}
			for (size_t i = 0; i < t.len; i++)
				hc_feed(&p->hc, p->tag_name, sizeof(p->tag_name),
					(unsigned char)t.s[i]);
			n = new_node(p, N_TEXT, t.line);
			if (!n)
				goto err;
			n->text = malloc(t.len);
			if (!n->text) {
				free(n);
				perr(p, t.line, "out of memory");
				goto err;
			}
			memcpy(n->text, t.s, t.len);
			n->len = t.len;
		} else if (t.type == T_EXPR) {
			if (top_of_child) {
				perr(p, t.line, "expression outside {%% block %%} in a template that extends another");
				goto err;
			}
			n = parse_expr(p, &t);
			if (!n)
				goto err;
		} else {
			split_tag(&t, &kw, &kwlen, &rest, &restlen);
			for (int i = 0; stops && stops[i]; i++) {
				if (kw_is(kw, kwlen, stops[i])) {
					st->idx = i;
					st->line = t.line;
					st->rest = rest;
					st->restlen = restlen;
					p->nest--;
					return 0;
				}
			}
			if (top_of_child && !kw_is(kw, kwlen, "block")) {
				perr(p, t.line, "only {%% block %%} is allowed in a template that extends another");
				goto err;
			}
			if (kw_is(kw, kwlen, "if")) {
				n = parse_if(p, &t, rest, restlen);
			} else if (kw_is(kw, kwlen, "for")) {
				n = parse_for(p, &t, rest, restlen);
			} else if (kw_is(kw, kwlen, "block")) {
				n = parse_block(p, &t, rest, restlen);
			} else if (kw_is(kw, kwlen, "include")) {
				if (require_text(p, t.line, "include"))
					goto err;
				n = new_node(p, N_INCLUDE, t.line);
				if (n && !(n->text = parse_quoted(p, t.line, rest, restlen))) {
					free(n);
					n = NULL;
				}
			} else if (kw_is(kw, kwlen, "extends")) {
				int first = p->nest == 1 && !p->child;
				for (const struct node *k = *head; first && k; k = k->next)
					first = k->kind == N_TEXT && only_space(k->text, k->len);
				if (!first) {
					perr(p, t.line, "{%% extends %%} must be the first tag of the template");
					goto err;
				}
				/* leading blank lines of a page that extends are dropped */
				free_nodes(*head);
				*head = NULL;
				tail = head;
				if (!(p->t->extends = parse_quoted(p, t.line, rest, restlen)))
					goto err;
				p->t->extends_line = t.line;
				p->child = 1;
				continue;
			} else if (kw_is(kw, kwlen, "elif") || kw_is(kw, kwlen, "else") ||
				   kw_is(kw, kwlen, "endif") || kw_is(kw, kwlen, "endfor") ||
				   kw_is(kw, kwlen, "endblock")) {
				perr(p, t.line, "unexpected {%% %.*s %%}", (int)kwlen, kw);
				goto err;
			} else {
				perr(p, t.line, "unknown tag {%% %.*s %%}",
				     (int)(kwlen > 40 ? 40 : kwlen), kw);
				goto err;
			}
			if (!n)
				goto err;
		}
		*tail = n;
		tail = &n->next;
	}
	p->nest--;
	return 0;
err:
	p->nest--;
	return -1;
}

static void free_tmpl(struct tmpl *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->extends);
	free_nodes(t->root);
	free(t);
}

static struct tmpl *find_tmpl(const fs_tmpl_set *s, const char *name)
{
	for (struct tmpl *t = s->list; t; t = t->next)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

fs_tmpl_set *fs_tmpl_new(void)
{
	return calloc(1, sizeof(fs_tmpl_set));
}

int fs_tmpl_has(const fs_tmpl_set *s, const char *name)
{
	return s && name && find_tmpl(s, name) != NULL;
}

int fs_tmpl_add(fs_tmpl_set *s, const char *name, const char *src, size_t len,
		char *err, size_t errlen)
{
	struct parser p = {.file = name, .pos = src, .end = src + len, .line = 1,
			   .err = err, .errlen = errlen};
	struct stop st;
	struct tmpl *t = NULL;

	if (find_tmpl(s, name)) {
		snprintf(err, errlen, "%s: duplicate template name", name);
		return -1;
	}
	if (memchr(src, 0, len)) {
		snprintf(err, errlen, "%s: NUL byte in template", name);
		return -1;
	}
	t = calloc(1, sizeof(*t));
	if (!t || !(t->name = strdup(name))) {
		snprintf(err, errlen, "%s: out of memory", name);
		goto err;
	}
	p.t = t;
	if (parse_list(&p, &t->root, NULL, &st))
		goto err;
	if (p.hc.st != H_TEXT) {
		perr(&p, p.line, "template ends inside %s", ctx_name(&p.hc));
		goto err;
	}
	t->next = s->list;
	s->list = t;
	return 0;
err:
	free_tmpl(t);
	return -1;
}

void fs_tmpl_free(fs_tmpl_set *s)
{
	if (!s)
		return;
	while (s->list) {
		struct tmpl *next = s->list->next;
		free_tmpl(s->list);
		s->list = next;
	}
	free(s);
}

/* ---- linking ---------------------------------------------------------- */

struct visit {
	const struct tmpl *stack[MAX_DEPTH + 1];
	int n;
};

static int link_tmpl(const fs_tmpl_set *s, const struct tmpl *t, struct visit *v,
		     char *err, size_t errlen);

static int link_nodes(const fs_tmpl_set *s, const struct tmpl *t,
		      const struct node *n, struct visit *v, char *err, size_t errlen)
{
	for (; n; n = n->next) {
		if (n->kind == N_INCLUDE) {
			const struct tmpl *target = find_tmpl(s, n->text);
			if (!target) {
				snprintf(err, errlen, "%s:%d: include of unknown template '%s'",
					 t->name, n->line, n->text);
				return -1;
			}
			if (link_tmpl(s, target, v, err, errlen))
				return -1;
		}
		if (link_nodes(s, t, n->body, v, err, errlen))
			return -1;
		for (const struct branch *b = n->br; b; b = b->next)
			if (link_nodes(s, t, b->body, v, err, errlen))
				return -1;
	}
	return 0;
}

static int link_tmpl(const fs_tmpl_set *s, const struct tmpl *t, struct visit *v,
		     char *err, size_t errlen)
{
	for (int i = 0; i < v->n; i++)
		if (v->stack[i] == t) {
			snprintf(err, errlen, "%s: include/extends cycle back to it from '%s'",
				 t->name, v->stack[v->n - 1]->name);
			return -1;
		}
	if (v->n >= MAX_DEPTH) {
		snprintf(err, errlen, "%s: include/extends nested deeper than %d",
			 t->name, MAX_DEPTH);
		return -1;
	}
	v->stack[v->n++] = t;
	if (t->extends) {
		const struct tmpl *parent = find_tmpl(s, t->extends);
		if (!parent) {
			snprintf(err, errlen, "%s:%d: extends unknown template '%s'",
				 t->name, t->extends_line, t->extends);
			return -1;
		}
		if (link_tmpl(s, parent, v, err, errlen))
			return -1;
	}
	if (link_nodes(s, t, t->root, v, err, errlen))
		return -1;
	v->n--;
	return 0;
}

int fs_tmpl_link(const fs_tmpl_set *s, char *err, size_t errlen)
{
	for (const struct tmpl *t = s->list; t; t = t->next) {
		struct visit v = {.n = 0};
		if (link_tmpl(s, t, &v, err, errlen))
			return -1;
	}
	return 0;
}

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n > m && strcmp(s + n - m, suf) == 0;
}

static int read_file(const char *path, fs_buf *out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char chunk[8192];
	size_t n;
	int rc = -1;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (out->len + n > MAX_FILE_BYTES) {
			snprintf(err, errlen, "%s: larger than %u bytes", path, MAX_FILE_BYTES);
			goto out;
		}
		if (fs_buf_append(out, chunk, n)) {
			snprintf(err, errlen, "%s: out of memory", path);
			goto out;
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		goto out;
	}
	rc = 0;
out:
	fclose(f);
	return rc;
}

fs_tmpl_set *fs_tmpl_load_dir(const char *dir, char *err, size_t errlen)
{
	fs_tmpl_set *s = fs_tmpl_new();
	fs_buf path = FS_BUF_INIT, src = FS_BUF_INIT;
	DIR *d = NULL;
	struct dirent *e;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		goto err;
	}
	d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		goto err;
	}
	while ((e = readdir(d))) {
		struct stat sb;
		if (e->d_name[0] == '.' || !has_suffix(e->d_name, ".html"))
			continue;
		fs_buf_reset(&path);
		fs_buf_reset(&src);
		if (fs_buf_printf(&path, "%s/%s", dir, e->d_name)) {
			snprintf(err, errlen, "out of memory");
			goto err;
		}
		if (stat(path.data, &sb) || !S_ISREG(sb.st_mode))
			continue;
		if (read_file(path.data, &src, err, errlen))
			goto err;
		if (fs_tmpl_add(s, e->d_name, src.data ? src.data : "", src.len, err, errlen))
			goto err;
	}
	if (fs_tmpl_link(s, err, errlen))
		goto err;
	closedir(d);
	fs_buf_free(&path);
	fs_buf_free(&src);
	return s;
err:
	if (d)
		closedir(d);
	fs_buf_free(&path);
	fs_buf_free(&src);
	fs_tmpl_free(s);
	return NULL;
}

/* ---- rendering -------------------------------------------------------- */

enum { V_NONE, V_JSON, V_NUM, V_BOOL };

struct val {
	int kind;
	const cJSON *j;
	double d;
};

struct frame {
	const char *var;
	const cJSON *item;
	int index, len;
	const struct frame *up;
};

struct render {
	const fs_tmpl_set *set;
	const cJSON *root;
	const struct frame *loop;
	const struct tmpl *chain[MAX_DEPTH];
	int nchain, depth;
	fs_buf *out;
	char *err;
	size_t errlen;
};

static struct val resolve(const struct render *r, const struct path *p)
{
	struct val v = {V_NONE, NULL, 0};
	int i = 1;

	for (const struct frame *f = r->loop; f; f = f->up)
		if (strcmp(f->var, p->seg[0]) == 0) {
			v.kind = V_JSON;
			v.j = f->item;
			break;
		}
	if (v.kind == V_NONE && r->loop && strcmp(p->seg[0], "loop") == 0) {
		const struct frame *f = r->loop;
		const char *m = p->n == 2 ? p->seg[1] : "";
		if (strcmp(m, "index") == 0)
			v = (struct val){V_NUM, NULL, f->index + 1};
		else if (strcmp(m, "index0") == 0)
			v = (struct val){V_NUM, NULL, f->index};
		else if (strcmp(m, "length") == 0)
			v = (struct val){V_NUM, NULL, f->len};
		else if (strcmp(m, "first") == 0)
			v = (struct val){V_BOOL, NULL, f->index == 0};
		else if (strcmp(m, "last") == 0)
			v = (struct val){V_BOOL, NULL, f->index == f->len - 1};
		return v;
	}
	if (v.kind == V_NONE) {
		if (!r->root)
			return v;
		v.kind = V_JSON;
		v.j = r->root;
		i = 0;
	}
	for (; i < p->n && v.j; i++) {
		const char *seg = p->seg[i];
		if (cJSON_IsArray(v.j) && isdigit((unsigned char)seg[0]))
			v.j = cJSON_GetArrayItem(v.j, atoi(seg));
		else if (cJSON_IsObject(v.j))
			v.j = cJSON_GetObjectItemCaseSensitive(v.j, seg);
		else
			v.j = NULL;
	}
	if (!v.j)
		v.kind = V_NONE;
	return v;
}

static void num_str(double d, char *buf, size_t n)
{
	if (d == 0)
		snprintf(buf, n, "0");
	else if (isfinite(d) && d == floor(d) && fabs(d) < 1e15)
		snprintf(buf, n, "%.0f", d);
	else
		snprintf(buf, n, "%g", d);
}

/* The printed form of a value; buf holds numbers. NULL when it prints empty. */
static const char *val_str(const struct val *v, char *buf, size_t n)
{
	if (v->kind == V_NUM) {
		num_str(v->d, buf, n);
		return buf;
	}
	if (v->kind == V_BOOL)
		return v->d ? "true" : "false";
	if (v->kind != V_JSON)
		return NULL;
	if (cJSON_IsString(v->j))
		return v->j->valuestring;
	if (cJSON_IsNumber(v->j)) {
		num_str(v->j->valuedouble, buf, n);
		return buf;
	}
	if (cJSON_IsTrue(v->j))
		return "true";
	if (cJSON_IsFalse(v->j))
		return "false";
	return NULL;
}

static int truthy(const struct val *v)
{
	if (v->kind == V_NUM || v->kind == V_BOOL)
		return v->d != 0;
	if (v->kind != V_JSON || cJSON_IsNull(v->j) || cJSON_IsFalse(v->j))
		return 0;
	if (cJSON_IsNumber(v->j))
		return v->j->valuedouble != 0;
	if (cJSON_IsString(v->j))
		return v->j->valuestring && v->j->valuestring[0];
	if (cJSON_IsArray(v->j) || cJSON_IsObject(v->j))
		return v->j->child != NULL;
	return 1;
}

static int cond_true(const struct render *r, const struct branch *b)
{
	if (b->kind == C_ELSE)
		return 1;
	struct val v = resolve(r, &b->path);
	if (b->kind == C_TRUTHY)
		return truthy(&v);
	if (b->kind == C_NOT)
		return !truthy(&v);
	char buf[64];
	const char *s = val_str(&v, buf, sizeof(buf));
	int eq = strcmp(s ? s : "", b->lit) == 0;
	return b->kind == C_EQ ? eq : !eq;
}

static int render_nodes(struct render *r, const struct node *n);
static int render_tmpl(struct render *r, const struct tmpl *t);

static int oom(struct render *r)
{
	snprintf(r->err, r->errlen, "out of memory while rendering");
	return -1;
}

static int render_expr(struct render *r, const struct node *n)
{
	char buf[64];
	struct val v = resolve(r, &n->path);
	const char *s = val_str(&v, buf, sizeof(buf));
	int rc = 0;

	if (!s)
		return 0;
	switch (n->esc) {
	case ESC_HTML:
		rc = fs_esc_html(r->out, s);
		break;
	case ESC_ATTR:
		rc = fs_esc_attr(r->out, s);
		break;
	case ESC_URL_ATTR:
		rc = fs_esc_url_attr(r->out, s);
		break;
	case ESC_JS:
		rc = fs_esc_js_string(r->out, s);
		break;
	case ESC_URL:
		rc = fs_esc_url_component(r->out, s);
		break;
	default:
		rc = fs_buf_puts(r->out, s);
		break;
	}
	return rc ? oom(r) : 0;
}

static const struct node *find_block(const struct node *n, const char *name)
{
	for (; n; n = n->next) {
		if (n->kind != N_BLOCK)
			continue;
		if (strcmp(n->text, name) == 0)
			return n;
		const struct node *in = find_block(n->body, name);
		if (in)
			return in;
	}
	return NULL;
}

static int render_nodes(struct render *r, const struct node *n)
{
	for (; n; n = n->next) {
		switch (n->kind) {
		case N_TEXT:
			if (fs_buf_append(r->out, n->text, n->len))
				return oom(r);
			break;
		case N_EXPR:
			if (render_expr(r, n))
				return -1;
			break;
		case N_IF:
			for (const struct branch *b = n->br; b; b = b->next)
				if (cond_true(r, b)) {
					if (render_nodes(r, b->body))
						return -1;
					break;
				}
			break;
		case N_FOR: {
			struct val v = resolve(r, &n->path);
			if (v.kind != V_JSON || !cJSON_IsArray(v.j))
				break;
			struct frame f = {.var = n->text, .len = cJSON_GetArraySize(v.j),
					  .up = r->loop};
			const struct frame *saved = r->loop;
			r->loop = &f;
			for (const cJSON *it = v.j->child; it; it = it->next, f.index++) {
				f.item = it;
				if (render_nodes(r, n->body)) {
					r->loop = saved;
					return -1;
				}
			}
			r->loop = saved;
			break;
		}
		case N_INCLUDE: {
			const struct tmpl *t = find_tmpl(r->set, n->text);
			int nchain = r->nchain;
			if (!t) {
				snprintf(r->err, r->errlen, "include of unknown template '%s'", n->text);
				return -1;
			}
			/* an included file's blocks are its own, not the page's */
			r->nchain = 0;
			int rc = render_tmpl(r, t);
			r->nchain = nchain;
			if (rc)
				return -1;
			break;
		}
		case N_BLOCK: {
			const struct node *use = n;
			for (int i = 0; i < r->nchain; i++) {
				const struct node *b = find_block(r->chain[i]->root, n->text);
				if (b) {
					use = b;
					break;
				}
			}
			if (render_nodes(r, use->body))
				return -1;
			break;
		}
		}
	}
	return 0;
}

static int render_tmpl(struct render *r, const struct tmpl *t)
{
	int rc;

	if (r->depth >= MAX_DEPTH) {
		snprintf(r->err, r->errlen, "%s: include/extends nested deeper than %d",
			 t->name, MAX_DEPTH);
		return -1;
	}
	r->depth++;
	if (t->extends) {
		const struct tmpl *parent = find_tmpl(r->set, t->extends);
		if (!parent || r->nchain >= MAX_DEPTH) {
			snprintf(r->err, r->errlen, "%s: extends unknown template '%s'",
				 t->name, t->extends);
			rc = -1;
		} else {
			r->chain[r->nchain++] = t;
			rc = render_tmpl(r, parent);
			r->nchain--;
		}
	} else {
		rc = render_nodes(r, t->root);
	}
	r->depth--;
	return rc;
}

int fs_tmpl_render(const fs_tmpl_set *s, const char *name, const cJSON *ctx,
		   fs_buf *out, char *err, size_t errlen)
{
	struct render r = {.set = s, .root = ctx, .out = out, .err = err,
			   .errlen = errlen};
	const struct tmpl *t = s && name ? find_tmpl(s, name) : NULL;

	if (!t) {
		snprintf(err, errlen, "unknown template '%s'", name ? name : "(null)");
		return -1;
	}
	return render_tmpl(&r, t);
}
