/* test_json_out.c - tests of json_out: exact pretty-printed output, escaping, numbers */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <criterion/criterion.h>

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/core/json_out.h"

TestSuite(json_out);

/* A writer on an in-memory stream; json_text returns what it wrote. */
struct capture {
	struct json_out j;
	FILE *fp;
	char *buf;
	size_t len;
};

static void capture_start(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->fp = open_memstream(&c->buf, &c->len);
	cr_assert_not_null(c->fp);
	json_init(&c->j, c->fp);
}

/* Closes the stream; the caller frees c->buf. */
static const char *capture_text(struct capture *c)
{
	cr_assert_eq(fclose(c->fp), 0);
	return c->buf;
}

Test(json_out, nested_output_is_exact)
{
	struct capture c;

	capture_start(&c);
	json_begin_object(&c.j);
	json_kv_string(&c.j, "variant", "tiled");
	json_kv_int(&c.j, "n", 65536);
	json_key(&c.j, "sizes");
	json_begin_array(&c.j);
	json_int(&c.j, 1);
	json_begin_array(&c.j);
	json_end_array(&c.j);
	json_begin_object(&c.j);
	json_kv_bool(&c.j, "ok", true);
	json_end_object(&c.j);
	json_end_array(&c.j);
	json_key(&c.j, "empty");
	json_begin_object(&c.j);
	json_end_object(&c.j);
	json_kv_bool(&c.j, "validated", false);
	json_kv_string(&c.j, "driver", NULL);
	json_kv_null(&c.j, "notes");
	json_kv_double(&c.j, "ms", 2.5);
	json_end_object(&c.j);
	json_finish(&c.j);
	cr_assert_str_eq(capture_text(&c),
		"{\n"
		"  \"variant\": \"tiled\",\n"
		"  \"n\": 65536,\n"
		"  \"sizes\": [\n"
		"    1,\n"
		"    [],\n"
		"    {\n"
		"      \"ok\": true\n"
		"    }\n"
		"  ],\n"
		"  \"empty\": {},\n"
		"  \"validated\": false,\n"
		"  \"driver\": null,\n"
		"  \"notes\": null,\n"
		"  \"ms\": 2.5\n"
		"}\n");
	free(c.buf);
}

Test(json_out, top_level_scalar_and_empty_array)
{
	struct capture c;

	capture_start(&c);
	json_int(&c.j, LLONG_MIN);
	json_finish(&c.j);
	cr_assert_str_eq(capture_text(&c), "-9223372036854775808\n");
	free(c.buf);

	capture_start(&c);
	json_begin_array(&c.j);
	json_end_array(&c.j);
	json_finish(&c.j);
	cr_assert_str_eq(capture_text(&c), "[]\n");
	free(c.buf);
}

Test(json_out, strings_are_escaped)
{
	struct capture c;

	capture_start(&c);
	json_string(&c.j, "q\" b\\ n\n t\t r\r \x01 \x1f \b\f \x7f é→日");
	json_finish(&c.j);
	cr_assert_str_eq(capture_text(&c),
		"\"q\\\" b\\\\ n\\n t\\t r\\r \\u0001 \\u001f \\b\\f \x7f é→日\"\n");
	free(c.buf);
}

Test(json_out, keys_are_escaped)
{
	struct capture c;

	capture_start(&c);
	json_begin_object(&c.j);
	json_kv_int(&c.j, "a\"b\n", 1);
	json_end_object(&c.j);
	json_finish(&c.j);
	cr_assert_str_eq(capture_text(&c), "{\n  \"a\\\"b\\n\": 1\n}\n");
	free(c.buf);
}

Test(json_out, non_finite_doubles_are_null)
{
	struct capture c;

	capture_start(&c);
	json_begin_array(&c.j);
	json_double(&c.j, NAN);
	json_double(&c.j, INFINITY);
	json_double(&c.j, -INFINITY);
	json_end_array(&c.j);
	json_finish(&c.j);
	cr_assert_str_eq(capture_text(&c), "[\n  null,\n  null,\n  null\n]\n");
	free(c.buf);
}

Test(json_out, doubles_are_short_and_exact)
{
	struct capture c;

	capture_start(&c);
	json_begin_array(&c.j);
	json_double(&c.j, 0.1);
	json_double(&c.j, 1.0 / 3.0);
	json_double(&c.j, 0.1 + 0.2);
	json_double(&c.j, -0.0);
	json_double(&c.j, 1e-300);
	json_double(&c.j, 1e21);
	json_double(&c.j, 3.0);
	json_double(&c.j, 5e-324);
	json_double(&c.j, 1.7976931348623157e308);
	json_end_array(&c.j);
	json_finish(&c.j);
	cr_assert_str_eq(capture_text(&c),
		"[\n"
		"  0.1,\n"
		"  0.3333333333333333,\n"
		"  0.30000000000000004,\n"
		"  -0,\n"
		"  1e-300,\n"
		"  1e+21,\n"
		"  3,\n"
		"  4.94065645841247e-324,\n"
		"  1.7976931348623157e+308\n"
		"]\n");
	free(c.buf);
}

/* The abort these tests expect would print its assertion on stderr, in
 * the middle of a passing run's output: it goes nowhere. */
static void quiet_abort(void)
{
	cr_assert_not_null(freopen("/dev/null", "w", stderr));
}

Test(json_out, key_outside_object_asserts, .signal = SIGABRT, .init = quiet_abort)
{
	struct json_out j;

	json_init(&j, stdout);
	json_begin_array(&j);
	json_key(&j, "no");
}

Test(json_out, value_where_key_is_due_asserts, .signal = SIGABRT, .init = quiet_abort)
{
	struct json_out j;

	json_init(&j, stdout);
	json_begin_object(&j);
	json_int(&j, 1);
}

Test(json_out, mismatched_close_asserts, .signal = SIGABRT, .init = quiet_abort)
{
	struct json_out j;

	json_init(&j, stdout);
	json_begin_object(&j);
	json_end_array(&j);
}

Test(json_out, finish_with_open_container_asserts, .signal = SIGABRT, .init = quiet_abort)
{
	struct json_out j;

	json_init(&j, stdout);
	json_begin_object(&j);
	json_finish(&j);
}
