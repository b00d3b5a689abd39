/* test_json_in.c - the JSON reader: what json_out writes reads back, malformed text is refused */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness/core/json_in.h"
#include "../harness/core/json_out.h"

static int parse(const char *text, struct json_in_value *v, char *err, size_t errlen)
{
	return json_in_parse(text, strlen(text), v, err, errlen);
}

Test(json_in, reads_back_what_json_out_writes)
{
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct json_out j;
	const char *odd = "tab\there \"quoted\" back\\slash \x01 caf\xc3\xa9 \xf0\x9f\x98\x80";
	json_init(&j, fp);
	json_begin_object(&j);
	json_kv_string(&j, "schema", "nbody-harness-results/1");
	json_kv_string(&j, "odd", odd);
	json_kv_double(&j, "third", 1.0 / 3.0);
	json_kv_double(&j, "tiny", 4.9e-324);
	json_kv_double(&j, "nan", NAN);
	json_kv_int(&j, "big", -9007199254740993LL);
	json_kv_bool(&j, "dirty", true);
	json_key(&j, "samples");
	json_begin_array(&j);
	json_begin_object(&j);
	json_key(&j, "seconds_per_call");
	json_begin_array(&j);
	json_double(&j, 1.25e-3);
	json_double(&j, 0.1);
	json_end_array(&j);
	json_end_object(&j);
	json_begin_array(&j);
	json_end_array(&j);
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
	fclose(fp);

	struct json_in_value v;
	cr_assert_eq(json_in_parse(buf, len, &v, err, sizeof err), 0, "%s\n%s", err, buf);
	cr_assert_eq(v.type, JSON_IN_OBJECT);
	cr_assert_str_eq(json_in_member(&v, "schema")->string, "nbody-harness-results/1");
	cr_assert_str_eq(json_in_member(&v, "odd")->string, odd);
	cr_assert_eq(json_in_member(&v, "third")->number, 1.0 / 3.0, "exact round trip");
	cr_assert_eq(json_in_member(&v, "tiny")->number, 4.9e-324);
	cr_assert_eq(json_in_member(&v, "nan")->type, JSON_IN_NULL);
	cr_assert_eq(json_in_member(&v, "big")->number, -9007199254740992.0);
	cr_assert(json_in_member(&v, "dirty")->boolean);
	const struct json_in_value *s = json_in_member(&v, "samples");
	cr_assert_eq(s->type, JSON_IN_ARRAY);
	cr_assert_eq(s->count, 2);
	const struct json_in_value *spc = json_in_member(&s->items[0], "seconds_per_call");
	cr_assert_eq(spc->count, 2);
	cr_assert_eq(spc->items[0].number, 1.25e-3);
	cr_assert_eq(spc->items[1].number, 0.1);
	cr_assert_eq(s->items[1].count, 0);
	cr_assert_null(json_in_member(&v, "absent"));
	cr_assert_null(json_in_member(s, "samples"), "an array has no members");
	json_in_free(&v);
	json_in_free(&v);
	free(buf);
}

Test(json_in, escapes_decode_to_utf8)
{
	struct json_in_value v;
	char err[256];
	cr_assert_eq(parse("[\"\\u00e9\\n\\/\\ud83d\\ude00\", -0.5e+2, 0, false, null]", &v, err,
			   sizeof err), 0, "%s", err);
	cr_assert_str_eq(v.items[0].string, "\xc3\xa9\n/\xf0\x9f\x98\x80");
	cr_assert_eq(v.items[1].number, -50.0);
	cr_assert_eq(v.items[2].number, 0.0);
	cr_assert_eq(v.items[3].type, JSON_IN_BOOL);
	cr_assert_not(v.items[3].boolean);
	cr_assert_eq(v.items[4].type, JSON_IN_NULL);
	json_in_free(&v);
}

Test(json_in, malformed_text_is_refused_with_its_line)
{
	const char *bad[] = {
		"", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "{a:1}", "[01]", "[1.]", "[.5]", "[+1]",
		"[1e]", "[nan]", "[inf]", "[tru]", "\"abc", "\"a\\x\"", "\"\\ud800\"", "\"\\u00zz\"",
		"\"\\u0000\"", "\"tab\there\"", "[1] [2]", "[1e999]", "{\"a\":1}\n\n}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct json_in_value v;
		char err[256] = "";
		cr_expect_eq(parse(bad[i], &v, err, sizeof err), -1, "'%s' accepted", bad[i]);
		cr_expect(strncmp(err, "line ", 5) == 0, "'%s': %s", bad[i], err);
		cr_expect_eq(v.type, JSON_IN_NULL, "'%s' left something behind", bad[i]);
	}
	struct json_in_value v;
	char err[256];
	cr_assert_eq(parse("{\"a\":1}\n\n}", &v, err, sizeof err), -1);
	cr_assert(strstr(err, "line 3"), "%s", err);
}

Test(json_in, nesting_is_bounded)
{
	char deep[2 * JSON_IN_MAX_DEPTH + 8], err[256];
	struct json_in_value v;
	size_t n = 0;
	for (int i = 0; i < JSON_IN_MAX_DEPTH; i++)
		deep[n++] = '[';
	for (int i = 0; i < JSON_IN_MAX_DEPTH; i++)
		deep[n++] = ']';
	deep[n] = '\0';
	cr_assert_eq(parse(deep, &v, err, sizeof err), 0, "%s", err);
	json_in_free(&v);
	memmove(deep + 1, deep, n + 1);
	deep[0] = '[';
	deep[n + 1] = ']';
	deep[n + 2] = '\0';
	cr_assert_eq(parse(deep, &v, err, sizeof err), -1);
	cr_assert(strstr(err, "deep"), "%s", err);
}

Test(json_in, files_name_themselves_in_errors)
{
	char path[] = "/tmp/harness-json-in-XXXXXX", err[512];
	struct json_in_value v;
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "{\"x\": [1, 2,\n 3}", 16), 16);
	close(fd);
	cr_assert_eq(json_in_read_file(path, &v, err, sizeof err), -1);
	cr_assert(strstr(err, path) && strstr(err, "line 2"), "%s", err);
	unlink(path);
	cr_assert_eq(json_in_read_file(path, &v, err, sizeof err), -1);
	cr_assert(strstr(err, path), "%s", err);
}
