/* Unit tests for the context-escaping template engine (template.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "web/template.h"

static char errbuf[512];
static fs_buf outbuf;

/* Builds a set from name/source pairs (NULL-terminated), links it and
 * returns NULL with errbuf set on any error. */
static fs_tmpl_set *make_set(const char *const *pairs)
{
	fs_tmpl_set *s = fs_tmpl_new();
	assert_non_null(s);
	errbuf[0] = 0;
	for (int i = 0; pairs[i]; i += 2) {
		if (fs_tmpl_add(s, pairs[i], pairs[i + 1], strlen(pairs[i + 1]),
				errbuf, sizeof(errbuf))) {
			fs_tmpl_free(s);
			return NULL;
		}
	}
	if (fs_tmpl_link(s, errbuf, sizeof(errbuf))) {
		fs_tmpl_free(s);
		return NULL;
	}
	return s;
}

/* Renders "page" from the given set with a JSON context. */
static const char *render_set(fs_tmpl_set *s, const char *json)
{
	cJSON *ctx = json ? cJSON_Parse(json) : NULL;
	if (json)
		assert_non_null(ctx);
	fs_buf_free(&outbuf);
	assert_int_equal(fs_tmpl_render(s, "page", ctx, &outbuf, errbuf, sizeof(errbuf)), 0);
	cJSON_Delete(ctx);
	if (!outbuf.data)
		assert_int_equal(fs_buf_puts(&outbuf, ""), 0);
	return outbuf.data;
}

static const char *render1(const char *src, const char *json)
{
	const char *pairs[] = {"page", src, NULL};
	fs_tmpl_set *s = make_set(pairs);
	if (!s)
		fail_msg("parse error: %s", errbuf);
	const char *r = render_set(s, json);
	fs_tmpl_free(s);
	return r;
}

/* Expects a load error mentioning want. */
static void parse_fails(const char *src, const char *want)
{
	const char *pairs[] = {"page", src, NULL};
	fs_tmpl_set *s = make_set(pairs);
	if (s) {
		fs_tmpl_free(s);
		fail_msg("expected a parse error for: %s", src);
	}
	if (!strstr(errbuf, want))
		fail_msg("error \"%s\" does not mention \"%s\"", errbuf, want);
}

static void values_print_naturally(void **state)
{
	(void)state;
	assert_string_equal(render1("{{ s }}|{{ i }}|{{ f }}|{{ t }}|{{ n }}|{{ missing }}|{{ z }}|{{ big }}",
				    "{\"s\":\"hi\",\"i\":42,\"f\":0.125,\"t\":true,\"n\":null,\"z\":-0.0,\"big\":1e20}"),
			    "hi|42|0.125|true|||0|1e+20");
}

static void dotted_paths_and_indexes_resolve(void **state)
{
	(void)state;
	assert_string_equal(render1("{{ user.name }} {{ items.1.id }} {{ user.nope.x }} {{ items.9 }}",
				    "{\"user\":{\"name\":\"ann\"},\"items\":[{\"id\":1},{\"id\":2}]}"),
			    "ann 2  ");
}

static void null_context_renders_empty_values(void **state)
{
	(void)state;
	assert_string_equal(render1("a{{ x }}b{% if x %}no{% endif %}", NULL), "ab");
}

static void comments_are_dropped(void **state)
{
	(void)state;
	assert_string_equal(render1("a{# {{ x }} {% bogus %} #}b", "{\"x\":1}"), "ab");
}

static void html_text_is_escaped(void **state)
{
	(void)state;
	assert_string_equal(render1("<p>{{ x }}</p>", "{\"x\":\"<script>alert(1)</script>&amp;'\\\"\"}"),
			    "<p>&lt;script&gt;alert(1)&lt;/script&gt;&amp;amp;&#39;&quot;</p>");
}

static void attribute_value_is_attr_escaped(void **state)
{
	(void)state;
	assert_string_equal(render1("<input value=\"{{ x }}\" title='{{ x }}'>",
				    "{\"x\":\"\\\" onmouseover=\\\"x'\"}"),
			    "<input value=\"&quot; onmouseover&#61;&quot;x&#39;\" title='&quot; onmouseover&#61;&quot;x&#39;'>");
}

static void url_attribute_start_is_scheme_checked(void **state)
{
	(void)state;
	assert_string_equal(render1("<a href=\"{{ u }}\">x</a><img src='{{ u }}'>",
				    "{\"u\":\"javascript:alert(1)\"}"),
			    "<a href=\"about:invalid\">x</a><img src='about:invalid'>");
	assert_string_equal(render1("<a class=\"c\" HREF=\"{{ u }}\">x</a>",
				    "{\"u\":\"https://a.org/?a=1&b=2\"}"),
			    "<a class=\"c\" HREF=\"https://a.org/?a&#61;1&amp;b&#61;2\">x</a>");
	assert_string_equal(render1("<form action=\"{{ a }}{{ b }}\"></form>",
				    "{\"a\":\"\",\"b\":\" javascript:x\"}"),
			    "<form action=\"about:invalid\"></form>");
}

static void url_attribute_after_literal_prefix_is_attr_escaped(void **state)
{
	(void)state;
	assert_string_equal(render1("<a href=\"/images/{{ id }}\">x</a>",
				    "{\"id\":\"javascript:x\\\"\"}"),
			    "<a href=\"/images/javascript:x&quot;\">x</a>");
}

static void url_filter_encodes_a_component(void **state)
{
	(void)state;
	assert_string_equal(render1("<a href=\"/x?q={{ q|url }}\">{{ q|url }}</a>",
				    "{\"q\":\"a b&c=\\\"<\"}"),
			    "<a href=\"/x?q=a%20b%26c%3D%22%3C\">a%20b%26c%3D%22%3C</a>");
}

static void script_string_is_js_escaped(void **state)
{
	(void)state;
	assert_string_equal(render1("<script>var a = \"{{ x }}\", b = '{{ x }}';</script>",
				    "{\"x\":\"</script><script>'\\u2028\"}"),
			    "<script>var a = \"\\u003C\\u002Fscript\\u003E\\u003Cscript\\u003E\\u0027\\u2028\", "
			    "b = '\\u003C\\u002Fscript\\u003E\\u003Cscript\\u003E\\u0027\\u2028';</script>");
}

static void js_comments_and_escapes_are_tracked(void **state)
{
	(void)state;
	assert_string_equal(render1("<script>// it's\n/* \"x */ var s = 'a\\'b{{ x }}';</script>",
				    "{\"x\":\"'\"}"),
			    "<script>// it's\n/* \"x */ var s = 'a\\'b\\u0027';</script>");
}

static void event_handler_string_is_js_escaped(void **state)
{
	(void)state;
	assert_string_equal(render1("<button onclick=\"go('{{ x }}')\">b</button>",
				    "{\"x\":\"');alert(1);//\\\"\"}"),
			    "<button onclick=\"go('\\u0027);alert(1);\\u002F\\u002F\\u0022')\">b</button>");
}

static void raw_filter_outputs_unescaped(void **state)
{
	(void)state;
	assert_string_equal(render1("<div>{{ h|raw }}</div><i {{ h|raw }}></i>", "{\"h\":\"<b>x</b>\"}"),
			    "<div><b>x</b></div><i <b>x</b>></i>");
}

static void html_comment_content_is_escaped(void **state)
{
	(void)state;
	assert_string_equal(render1("<!-- {{ x }} -->", "{\"x\":\"--><script>\"}"),
			    "<!-- --&gt;&lt;script&gt; -->");
}

static void style_element_expression_is_refused(void **state)
{
	(void)state;
	parse_fails("<style>p { color: {{ c }} }</style>", "page:1: expression inside <style>");
}

static void style_attribute_expression_is_refused(void **state)
{
	(void)state;
	parse_fails("<p style=\"color: {{ c }}\">", "style attribute");
}

static void unquoted_attribute_is_refused(void **state)
{
	(void)state;
	parse_fails("<p class={{ c }}>", "unquoted attribute");
	parse_fails("<p class=x{{ c }}>", "unquoted attribute");
}

static void expression_inside_tag_is_refused(void **state)
{
	(void)state;
	parse_fails("<p {{ attrs }}>", "inside a tag");
	parse_fails("<{{ t }}>", "inside");
	parse_fails("<p\n\nid=\"a\" {{ x }}>", "page:3:");
}

static void script_expression_outside_string_is_refused(void **state)
{
	(void)state;
	parse_fails("<script>var a = {{ x }};</script>", "quoted JavaScript string");
	parse_fails("<script>var a = `{{ x }}`;</script>", "quoted JavaScript string");
	parse_fails("<script>// '\nvar a = {{ x }};</script>", "quoted JavaScript string");
	parse_fails("<a onclick=\"go({{ x }})\">", "quoted JavaScript string");
}

static void script_ends_at_closing_tag(void **state)
{
	(void)state;
	assert_string_equal(render1("<script>var a='</SCRIPT><p title=\"{{ x }}\">", "{\"x\":\"=\"}"),
			    "<script>var a='</SCRIPT><p title=\"&#61;\">");
}

static void unknown_tag_error_names_file_and_line(void **state)
{
	(void)state;
	parse_fails("a\nb\n{% frobnicate x %}", "page:3: unknown tag {% frobnicate %}");
}

static void unclosed_blocks_are_errors(void **state)
{
	(void)state;
	parse_fails("{% if a %}x", "page:1: {% if %} is not closed");
	parse_fails("\n{% for a in b %}x", "page:2: {% for %} is not closed");
	parse_fails("{% block a %}x", "not closed");
	parse_fails("{% endif %}", "unexpected {% endif %}");
	parse_fails("{% if a %}{% endfor %}{% endif %}", "unexpected {% endfor %}");
	parse_fails("x {{ y ", "unterminated");
	parse_fails("{# never closed", "unterminated");
	parse_fails("{% block a %}{% endblock b %}", "closes");
}

static void bad_expressions_are_errors(void **state)
{
	(void)state;
	parse_fails("{{ a|shout }}", "unknown filter");
	parse_fails("{{ a b }}", "bad path");
	parse_fails("{{ }}", "bad path");
	parse_fails("{{ 1.a }}", "bad path");
	parse_fails("{{ a..b }}", "bad path");
	parse_fails("{% if a == b %}{% endif %}", "quoted string");
	parse_fails("{% for x of y %}{% endfor %}", "for NAME in PATH");
	parse_fails("{% else %}", "unexpected");
}

static void template_may_not_end_inside_a_tag(void **state)
{
	(void)state;
	parse_fails("<a href=\"x", "ends inside");
}

static void branches_must_end_in_same_context(void **state)
{
	(void)state;
	parse_fails("{% if a %}<a href=\"{% else %}<b>{% endif %}x\">", "different HTML contexts");
	parse_fails("{% if a %}<a title=\"{% endif %}\">", "must end in the HTML context");
	parse_fails("{% for a in b %}<p class=\"{% endfor %}\">", "must end in the HTML context");
	/* the same context in both branches is fine, even inside a tag */
	assert_string_equal(render1("<p class=\"{% if a %}x{% else %}{{ b }}{% endif %}\">",
				    "{\"a\":false,\"b\":\"<\"}"),
			    "<p class=\"&lt;\">");
}

static void conditions_choose_the_first_true_branch(void **state)
{
	(void)state;
	const char *t = "{% if a %}A{% elif b %}B{% else %}C{% endif %}";
	assert_string_equal(render1(t, "{\"a\":1,\"b\":1}"), "A");
	assert_string_equal(render1(t, "{\"a\":0,\"b\":1}"), "B");
	assert_string_equal(render1(t, "{\"a\":0,\"b\":0}"), "C");
	assert_string_equal(render1("{% if not a %}N{% endif %}", "{\"a\":\"\"}"), "N");
}

static void comparisons_use_printed_values(void **state)
{
	(void)state;
	const char *t = "{% if s == \"done\" %}D{% endif %}{% if n == 3 %}3{% endif %}"
			"{% if s != 'x' %}!{% endif %}{% if m == \"\" %}E{% endif %}";
	assert_string_equal(render1(t, "{\"s\":\"done\",\"n\":3}"), "D3!E");
	assert_string_equal(render1(t, "{\"s\":\"x\",\"n\":3.5,\"m\":\"q\"}"), "");
}

static void truthiness_follows_the_rules(void **state)
{
	(void)state;
	const char *t = "{% if v %}T{% else %}F{% endif %}";
	const char *falsy[] = {"null", "false", "0", "\"\"", "[]", "{}", "0.0"};
	const char *truthy[] = {"true", "1", "-2", "\"0\"", "[0]", "{\"a\":0}", "\" \""};
	char json[64];
	for (size_t i = 0; i < sizeof(falsy) / sizeof(*falsy); i++) {
		snprintf(json, sizeof(json), "{\"v\":%s}", falsy[i]);
		assert_string_equal(render1(t, json), "F");
	}
	for (size_t i = 0; i < sizeof(truthy) / sizeof(*truthy); i++) {
		snprintf(json, sizeof(json), "{\"v\":%s}", truthy[i]);
		assert_string_equal(render1(t, json), "T");
	}
	assert_string_equal(render1(t, "{}"), "F");
}

static void for_loops_expose_loop_variables(void **state)
{
	(void)state;
	assert_string_equal(render1("{% for x in xs %}{% if loop.first %}[{% endif %}{{ loop.index }}:{{ x.n }}"
				    "{% if loop.last %}]{% else %},{% endif %}{% endfor %}",
				    "{\"xs\":[{\"n\":\"a\"},{\"n\":\"b\"},{\"n\":\"c\"}]}"),
			    "[1:a,2:b,3:c]");
}

static void nested_loops_see_outer_variables(void **state)
{
	(void)state;
	assert_string_equal(render1("{% for r in rows %}{% for c in r.cells %}{{ r.id }}.{{ c }}/{{ loop.index }} "
				    "{% endfor %}{{ loop.index }};{% endfor %}",
				    "{\"rows\":[{\"id\":1,\"cells\":[\"a\",\"b\"]},{\"id\":2,\"cells\":[]}]}"),
			    "1.a/1 1.b/2 1;2;");
}

static void for_over_non_array_renders_nothing(void **state)
{
	(void)state;
	assert_string_equal(render1("a{% for x in o %}X{% endfor %}{% for x in nope %}Y{% endfor %}b",
				    "{\"o\":{\"k\":1}}"),
			    "ab");
}

static void include_renders_with_same_context(void **state)
{
	(void)state;
	const char *pairs[] = {"page", "<ul>{% for i in items %}{% include \"row.html\" %}{% endfor %}</ul>",
			       "row.html", "<li>{{ i }}{{ title }}</li>", NULL};
	fs_tmpl_set *s = make_set(pairs);
	assert_non_null(s);
	assert_string_equal(render_set(s, "{\"items\":[\"<a>\",2],\"title\":\"!\"}"),
			    "<ul><li>&lt;a&gt;!</li><li>2!</li></ul>");
	fs_tmpl_free(s);
}

static void include_cycle_is_detected(void **state)
{
	(void)state;
	const char *pairs[] = {"page", "{% include \"a.html\" %}", "a.html", "{% include \"b.html\" %}",
			       "b.html", "{% if x %}{% include \"a.html\" %}{% endif %}", NULL};
	assert_null(make_set(pairs));
	assert_non_null(strstr(errbuf, "cycle"));
	const char *self[] = {"page", "{% include \"page\" %}", NULL};
	assert_null(make_set(self));
	assert_non_null(strstr(errbuf, "cycle"));
}

static void include_of_unknown_template_fails_to_load(void **state)
{
	(void)state;
	const char *pairs[] = {"page", "\n{% include \"nope.html\" %}", NULL};
	assert_null(make_set(pairs));
	assert_string_equal(errbuf, "page:2: include of unknown template 'nope.html'");
}

static void include_inside_attribute_is_refused(void **state)
{
	(void)state;
	parse_fails("<a title=\"{% include \"x\" %}\">", "only allowed in HTML text");
}

static const char *base_html =
	"<title>{% block title %}fishscale{% endblock %}</title>"
	"<main>{% block content %}empty{% endblock content %}</main>";

static void extends_fills_blocks_and_keeps_defaults(void **state)
{
	(void)state;
	const char *pairs[] = {"base.html", base_html, "page",
			       "\n  {% extends \"base.html\" %}\n{# c #}\n{% block content %}<p>{{ x }}</p>{% endblock %}\n",
			       NULL};
	fs_tmpl_set *s = make_set(pairs);
	if (!s)
		fail_msg("%s", errbuf);
	assert_string_equal(render_set(s, "{\"x\":\"<i>\"}"),
			    "<title>fishscale</title><main><p>&lt;i&gt;</p></main>");
	fs_tmpl_free(s);
}

static void extends_works_over_several_levels(void **state)
{
	(void)state;
	const char *pairs[] = {"base.html", base_html,
			       "layout.html", "{% extends \"base.html\" %}{% block title %}L{% endblock %}"
			       "{% block content %}[{% block inner %}i{% endblock %}]{% endblock %}",
			       "page", "{% extends \"layout.html\" %}{% block inner %}P{% endblock %}", NULL};
	fs_tmpl_set *s = make_set(pairs);
	if (!s)
		fail_msg("%s", errbuf);
	assert_string_equal(render_set(s, "{}"), "<title>L</title><main>[P]</main>");
	fs_tmpl_free(s);
}

static void extends_errors_are_reported(void **state)
{
	(void)state;
	parse_fails("x{% extends \"base.html\" %}", "first tag");
	parse_fails("{% extends \"base.html\" %}hello", "text outside {% block %}");
	parse_fails("{% extends \"base.html\" %}{% if a %}{% endif %}", "only {% block %}");
	parse_fails("{% block a %}{% endblock %}{% block a %}{% endblock %}", "defined twice");
	parse_fails("<p title=\"{% block a %}{% endblock %}\">", "only allowed in HTML text");
	const char *pairs[] = {"page", "{% extends \"missing.html\" %}", NULL};
	assert_null(make_set(pairs));
	assert_non_null(strstr(errbuf, "extends unknown template 'missing.html'"));
}

static void render_of_unknown_template_fails(void **state)
{
	(void)state;
	const char *pairs[] = {"page", "x", NULL};
	fs_tmpl_set *s = make_set(pairs);
	fs_buf b = FS_BUF_INIT;
	assert_int_equal(fs_tmpl_render(s, "other", NULL, &b, errbuf, sizeof(errbuf)), -1);
	assert_non_null(strstr(errbuf, "unknown template 'other'"));
	assert_int_equal(fs_tmpl_has(s, "page"), 1);
	assert_int_equal(fs_tmpl_has(s, "other"), 0);
	fs_tmpl_free(s);
	fs_buf_free(&b);
	fs_tmpl_free(NULL);
}

static void duplicate_template_name_is_refused(void **state)
{
	(void)state;
	const char *pairs[] = {"page", "a", "page", "b", NULL};
	assert_null(make_set(pairs));
	assert_non_null(strstr(errbuf, "duplicate"));
}

static int count_chars(const char *s, char c)
{
	int n = 0;
	for (; *s; s++)
		n += *s == c;
	return n;
}

/* Every hostile string in every context: nothing escapes its context. */
static void hostile_strings_stay_in_every_context(void **state)
{
	(void)state;
	static const char *const hostile[] = {
		"<script>alert(1)</script>", "\" onmouseover=\"x", "javascript:alert(1)",
		"</script><script>", "'", "&amp;", "\xE2\x80\xA8", "`${x}`", "\\", "-->",
	};
	const char *pairs[] = {"page",
		"<p>{{ x }}</p><a href=\"{{ x }}\" title=\"{{ x }}\" data-x='{{ x }}'>t</a>"
		"<b onclick=\"f('{{ x }}')\">b</b><script>var s=\"{{ x }}\";</script>"
		"<a href=\"/q?x={{ x|url }}\">u</a>", NULL};
	fs_tmpl_set *s = make_set(pairs);
	assert_non_null(s);
	cJSON *ctx = cJSON_CreateObject();
	fs_buf big = FS_BUF_INIT;
	for (int i = 0; i < 2000; i++)
		assert_int_equal(fs_buf_puts(&big, "<\"'&"), 0);
	for (size_t i = 0; i <= sizeof(hostile) / sizeof(*hostile); i++) {
		const char *x = i < sizeof(hostile) / sizeof(*hostile) ? hostile[i] : big.data;
		cJSON_DeleteItemFromObject(ctx, "x");
		cJSON_AddStringToObject(ctx, "x", x);
		fs_buf out = FS_BUF_INIT;
		assert_int_equal(fs_tmpl_render(s, "page", ctx, &out, errbuf, sizeof(errbuf)), 0);
		/* the only tags and quotes are the template's own */
		assert_int_equal(count_chars(out.data, '<'), 10);
		assert_int_equal(count_chars(out.data, '>'), 10);
		assert_int_equal(count_chars(out.data, '"'), 10);
		assert_int_equal(count_chars(out.data, '\''), 4);
		assert_null(strstr(out.data, "href=\"javascript"));
		/* JS strings never hold a raw line separator */
		assert_null(strstr(out.data, "s=\"\xE2\x80\xA8"));
		assert_null(strstr(out.data, "f('\xE2\x80\xA8"));
		fs_buf_free(&out);
	}
	fs_buf_free(&big);
	cJSON_Delete(ctx);
	fs_tmpl_free(s);
}

/* Token soup from a fixed seed: the parser and renderer must fail cleanly
 * or render, never crash or leak (meaningful under ASan). */
static void random_templates_fail_cleanly(void **state)
{
	(void)state;
	static const char *const tok[] = {
		"{{", "}}", "{%", "%}", "{#", "#}", " if a ", " elif b ", " else ", " endif ",
		" for x in xs ", " endfor ", " block b ", " endblock ", " include \"page\" ",
		" extends \"page\" ", "<", ">", "\"", "'", "=", "script", "/script", "style",
		" href", " onclick", " a ", "x.y", "|raw", "|url", "\n", "<!--", "-->", "`", "\\", "/",
	};
	const size_t ntok = sizeof(tok) / sizeof(*tok);
	unsigned long long seed = 12345;
	cJSON *ctx = cJSON_Parse("{\"a\":1,\"b\":\"<\",\"xs\":[1,2],\"x\":{\"y\":\"'\"}}");
	int parsed = 0;
	for (int i = 0; i < 3000; i++) {
		fs_buf src = FS_BUF_INIT, out = FS_BUF_INIT;
		int n = 1 + i % 24;
		for (int k = 0; k < n; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			assert_int_equal(fs_buf_puts(&src, tok[(seed >> 33) % ntok]), 0);
		}
		fs_tmpl_set *s = fs_tmpl_new();
		if (fs_tmpl_add(s, "page", src.data, src.len, errbuf, sizeof(errbuf)) == 0 &&
		    fs_tmpl_link(s, errbuf, sizeof(errbuf)) == 0) {
			parsed++;
			assert_int_equal(fs_tmpl_render(s, "page", ctx, &out, errbuf, sizeof(errbuf)), 0);
		} else {
			assert_true(errbuf[0] != 0);
		}
		fs_tmpl_free(s);
		fs_buf_free(&src);
		fs_buf_free(&out);
	}
	assert_true(parsed > 100);
	cJSON_Delete(ctx);
}

static void load_dir_reads_html_files(void **state)
{
	(void)state;
	char dir[] = "/tmp/fs_tmpl_XXXXXX";
	char path[256];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/base.html", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("<h1>{% block t %}{% endblock %}</h1>", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/page", dir);
	f = fopen(path, "w");
	fputs("{% bogus %}", f); /* not *.html: ignored */
	fclose(f);
	snprintf(path, sizeof(path), "%s/home.html", dir);
	f = fopen(path, "w");
	fputs("{% extends \"base.html\" %}{% block t %}{{ name }}{% endblock %}", f);
	fclose(f);

	fs_tmpl_set *s = fs_tmpl_load_dir(dir, errbuf, sizeof(errbuf));
	if (!s)
		fail_msg("%s", errbuf);
	cJSON *ctx = cJSON_Parse("{\"name\":\"a&b\"}");
	fs_buf out = FS_BUF_INIT;
	assert_int_equal(fs_tmpl_render(s, "home.html", ctx, &out, errbuf, sizeof(errbuf)), 0);
	assert_string_equal(out.data, "<h1>a&amp;b</h1>");
	fs_buf_free(&out);
	cJSON_Delete(ctx);
	fs_tmpl_free(s);

	snprintf(path, sizeof(path), "%s/broken.html", dir);
	f = fopen(path, "w");
	fputs("ok\n{% if x %}\n", f);
	fclose(f);
	assert_null(fs_tmpl_load_dir(dir, errbuf, sizeof(errbuf)));
	assert_string_equal(errbuf, "broken.html:2: {% if %} is not closed by {% endif %}");

	const char *names[] = {"base.html", "page", "home.html", "broken.html"};
	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
	assert_null(fs_tmpl_load_dir("/nonexistent/dir", errbuf, sizeof(errbuf)));
}

static int teardown(void **state)
{
	(void)state;
	fs_buf_free(&outbuf);
	return 0;
}

#define T(f) cmocka_unit_test_teardown(f, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(values_print_naturally),
		T(dotted_paths_and_indexes_resolve),
		T(null_context_renders_empty_values),
		T(comments_are_dropped),
		T(html_text_is_escaped),
		T(attribute_value_is_attr_escaped),
		T(url_attribute_start_is_scheme_checked),
		T(url_attribute_after_literal_prefix_is_attr_escaped),
		T(url_filter_encodes_a_component),
		T(script_string_is_js_escaped),
		T(js_comments_and_escapes_are_tracked),
		T(event_handler_string_is_js_escaped),
		T(raw_filter_outputs_unescaped),
		T(html_comment_content_is_escaped),
		T(style_element_expression_is_refused),
		T(style_attribute_expression_is_refused),
		T(unquoted_attribute_is_refused),
		T(expression_inside_tag_is_refused),
		T(script_expression_outside_string_is_refused),
		T(script_ends_at_closing_tag),
		T(unknown_tag_error_names_file_and_line),
		T(unclosed_blocks_are_errors),
		T(bad_expressions_are_errors),
		T(template_may_not_end_inside_a_tag),
		T(branches_must_end_in_same_context),
		T(conditions_choose_the_first_true_branch),
		T(comparisons_use_printed_values),
		T(truthiness_follows_the_rules),
		T(for_loops_expose_loop_variables),
		T(nested_loops_see_outer_variables),
		T(for_over_non_array_renders_nothing),
		T(include_renders_with_same_context),
		T(include_cycle_is_detected),
		T(include_of_unknown_template_fails_to_load),
		T(include_inside_attribute_is_refused),
		T(extends_fills_blocks_and_keeps_defaults),
		T(extends_works_over_several_levels),
		T(extends_errors_are_reported),
		T(render_of_unknown_template_fails),
		T(duplicate_template_name_is_refused),
		T(hostile_strings_stay_in_every_context),
		T(random_templates_fail_cleanly),
		T(load_dir_reads_html_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
