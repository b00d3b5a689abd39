/* bodies_io.c - user-supplied N-body initial conditions: CSV (libcsv) and Tipsy readers, CSV writer */
#include "bodies_io.h"

#include <csv.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Numbers are read with strtof and written with printf, both of which
 * follow LC_NUMERIC; the harness never calls setlocale, so the decimal
 * point is always '.'.
 */

_Static_assert(sizeof(float) == 4, "Tipsy records hold 4-byte IEEE floats");

/* Most characters of a user's text quoted in an error message. */
#define BODIES_QUOTE_MAX 40

/* Bodies the CSV reader makes room for at first; it doubles from there. */
#define BODIES_CSV_FIRST_CAP 256

#ifdef __GNUC__
#define BODIES_PRINTF(fmt_arg, first_arg) \
	__attribute__((format(printf, fmt_arg, first_arg)))
#else
#define BODIES_PRINTF(fmt_arg, first_arg)
#endif

static int bodies_vfail(char *err, size_t errlen, const char *fmt, va_list ap)
	BODIES_PRINTF(3, 0);
static int bodies_fail(char *err, size_t errlen, const char *fmt, ...)
	BODIES_PRINTF(3, 4);

/* Writes a message into err (when there is room for one); returns -1. */
static int bodies_vfail(char *err, size_t errlen, const char *fmt, va_list ap)
{
	if (err && errlen > 0)
		vsnprintf(err, errlen, fmt, ap);
	return -1;
}

/* printf-style form of bodies_vfail; returns -1. */
static int bodies_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bodies_vfail(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Copies len bytes of a user's text into buf (of at least
 * BODIES_QUOTE_MAX + 4 bytes) for quoting in a one-line message: control
 * characters (a newline inside a quoted field, say) become '?', and text
 * longer than BODIES_QUOTE_MAX is cut and ends in "...".
 */
static void bodies_quote_text(char *buf, const char *text, size_t len)
{
	size_t i, shown = len < BODIES_QUOTE_MAX ? len : BODIES_QUOTE_MAX;

	for (i = 0; i < shown; i++)
		buf[i] = iscntrl((unsigned char)text[i]) ? '?' : text[i];
	if (shown < len) {
		memcpy(buf + shown, "...", 3);
		shown += 3;
	}
	buf[shown] = '\0';
}

void bodies_free(struct bodies *b)
{
	free(b->pos4);
	free(b->vel4);
	*b = (struct bodies){0};
}

/* ---------------------------------------------------------------- CSV */

/* The columns the CSV reader knows; the first four are required. */
enum bodies_csv_col {
	COL_X, COL_Y, COL_Z, COL_MASS, COL_VX, COL_VY, COL_VZ, COL_COUNT,
	COL_IGNORED = -1
};
#define COL_REQUIRED (COL_MASS + 1)
#define COL_ABSENT SIZE_MAX

static const char *const bodies_csv_col_names[COL_COUNT] = {
	"x", "y", "z", "mass", "vx", "vy", "vz"
};

/* The CSV reader's state, shared by the libcsv callbacks. */
struct bodies_csv_reader {
	const char *path;
	char *err;
	size_t errlen;
	int failed;                 /* a message is in err; ignore the rest */
	unsigned long line;         /* physical line being fed to libcsv, from 1 */
	unsigned long row_line;     /* line the current row starts on */
	unsigned long blank_line;   /* first blank line not yet followed by data, or 0 */
	unsigned long header_line;  /* line the header ends on, 0 until it is read */
	int *col_kind;              /* per header column: a bodies_csv_col or COL_IGNORED */
	size_t ncols, col_cap;
	size_t col_of[COL_COUNT];   /* header column of each known name, or COL_ABSENT */
	int has_vel;
	size_t field;               /* fields seen so far in the current row */
	int prev_end;               /* how the previous row ended; '\r' means a '\n' may follow */
	float row[COL_COUNT];       /* the current row's values */
	struct bodies b;
	size_t cap;                 /* bodies b has room for */
};

static void bodies_csv_fail(struct bodies_csv_reader *r, const char *fmt, ...)
	BODIES_PRINTF(2, 3);

/*
 * Records the reader's first error as "path:LINE: message", LINE being the
 * line now being fed; later errors (libcsv keeps calling back for the rest
 * of its buffer) are dropped.
 */
static void bodies_csv_fail(struct bodies_csv_reader *r, const char *fmt, ...)
{
	va_list ap;
	int used = 0;

	if (r->failed)
		return;
	r->failed = 1;
	if (!r->err || r->errlen == 0)
		return;
	used = snprintf(r->err, r->errlen, "%s:%lu: ", r->path, r->line);
	if (used < 0 || (size_t)used >= r->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(r->err + used, r->errlen - (size_t)used, fmt, ap);
	va_end(ap);
}

/* Points *s and *e at text less its leading and trailing white space. */
static void bodies_trim(const char *text, size_t len, const char **s, const char **e)
{
	*s = text;
	*e = text + len;
	while (*s < *e && isspace((unsigned char)**s))
		(*s)++;
	while (*e > *s && isspace((unsigned char)(*e)[-1]))
		(*e)--;
}

/* The column a header name stands for (any case), or COL_IGNORED. */
static int bodies_csv_col_kind(const char *s, size_t len)
{
	int kind;
	size_t i;

	for (kind = 0; kind < COL_COUNT; kind++) {
		const char *name = bodies_csv_col_names[kind];

		if (strlen(name) != len)
			continue;
		for (i = 0; i < len; i++)
			if (tolower((unsigned char)s[i]) != name[i])
				break;
		if (i == len)
			return kind;
	}
	return COL_IGNORED;
}

/* Takes one header field: notes which column it is, refusing duplicates. */
static void bodies_csv_header_field(struct bodies_csv_reader *r,
				    const char *text, size_t len)
{
	const char *s, *e;
	int kind;

	bodies_trim(text, len, &s, &e);
	kind = bodies_csv_col_kind(s, (size_t)(e - s));
	if (r->ncols == r->col_cap) {
		size_t cap = r->col_cap ? 2 * r->col_cap : 16;
		int *grown = cap < SIZE_MAX / sizeof(*grown) ?
			realloc(r->col_kind, cap * sizeof(*grown)) : NULL;

		if (!grown) {
			bodies_csv_fail(r, "out of memory reading the header");
			return;
		}
		r->col_kind = grown;
		r->col_cap = cap;
	}
	if (kind != COL_IGNORED) {
		if (r->col_of[kind] != COL_ABSENT) {
			bodies_csv_fail(r, "header names column '%s' twice (columns %zu and %zu)",
					bodies_csv_col_names[kind],
					r->col_of[kind] + 1, r->ncols + 1);
			return;
		}
		r->col_of[kind] = r->ncols;
	}
	r->col_kind[r->ncols++] = kind;
}

/* Ends the header row: the required columns, and all or none of vx,vy,vz. */
static void bodies_csv_header_end(struct bodies_csv_reader *r)
{
	int kind, nvel = 0, missing_vel = COL_IGNORED;

	for (kind = 0; kind < COL_REQUIRED; kind++) {
		if (r->col_of[kind] == COL_ABSENT) {
			bodies_csv_fail(r, "header lacks column '%s' (need x,y,z,mass)",
					bodies_csv_col_names[kind]);
			return;
		}
	}
	for (kind = COL_VX; kind <= COL_VZ; kind++) {
		if (r->col_of[kind] != COL_ABSENT)
			nvel++;
		else if (missing_vel == COL_IGNORED)
			missing_vel = kind;
	}
	if (nvel != 0 && nvel != 3) {
		bodies_csv_fail(r, "header lacks column '%s' (velocities need all of vx,vy,vz, or none)",
				bodies_csv_col_names[missing_vel]);
		return;
	}
	r->has_vel = nvel == 3;
	r->header_line = r->line;
}

/*
 * Parses one field of a body row into r->row[kind]: the whole field (less
 * surrounding white space) must be a finite number, and a mass >= 0.
 * text is NUL-terminated at text[len] (CSV_APPEND_NULL), which strtof needs.
 */
static void bodies_csv_value(struct bodies_csv_reader *r, int kind,
			     const char *text, size_t len)
{
	const char *name = bodies_csv_col_names[kind];
	char shown[BODIES_QUOTE_MAX + 4];
	const char *s, *e;
	char *end;
	float v;

	bodies_trim(text, len, &s, &e);
	bodies_quote_text(shown, text, len);
	if (s == e) {
		bodies_csv_fail(r, "column '%s' is empty", name);
		return;
	}
	v = strtof(s, &end);
	if (end != e) {
		bodies_csv_fail(r, "column '%s': '%s' is not a number", name, shown);
		return;
	}
	if (!isfinite(v)) {
		bodies_csv_fail(r, "column '%s': '%s' is not a finite number", name, shown);
		return;
	}
	if (kind == COL_MASS && v < 0) {
		bodies_csv_fail(r, "column 'mass': '%s' is negative (masses must be >= 0)", shown);
		return;
	}
	r->row[kind] = v;
}

/* Makes room for one more body, doubling; returns 0 or -1 when out of memory. */
static int bodies_grow(struct bodies *b, size_t *cap)
{
	size_t want = *cap ? 2 * *cap : BODIES_CSV_FIRST_CAP;
	float *p;

	if (b->n < *cap)
		return 0;
	if (want < *cap || want > SIZE_MAX / (4 * sizeof(float)))
		return -1;
	p = realloc(b->pos4, want * 4 * sizeof(float));
	if (!p)
		return -1;
	b->pos4 = p;
	p = realloc(b->vel4, want * 4 * sizeof(float));
	if (!p)
		return -1;
	b->vel4 = p;
	*cap = want;
	return 0;
}

/* Gives back the unused room bodies_grow left; keeps it if realloc fails. */
static void bodies_shrink(struct bodies *b)
{
	float *p;

	p = realloc(b->pos4, b->n * 4 * sizeof(float));
	if (p)
		b->pos4 = p;
	p = realloc(b->vel4, b->n * 4 * sizeof(float));
	if (p)
		b->vel4 = p;
}

/* Ends a body row: checks its field count and appends the body. */
static void bodies_csv_body_end(struct bodies_csv_reader *r)
{
	float *pos, *vel;

	if (r->field != r->ncols) {
		bodies_csv_fail(r, "row has %zu fields but the header on line %lu has %zu",
				r->field, r->header_line, r->ncols);
		return;
	}
	if (bodies_grow(&r->b, &r->cap) != 0) {
		bodies_csv_fail(r, "out of memory after %zu bodies", r->b.n);
		return;
	}
	pos = r->b.pos4 + 4 * r->b.n;
	vel = r->b.vel4 + 4 * r->b.n;
	pos[0] = r->row[COL_X];
	pos[1] = r->row[COL_Y];
	pos[2] = r->row[COL_Z];
	pos[3] = r->row[COL_MASS];
	vel[0] = r->has_vel ? r->row[COL_VX] : 0.0f;
	vel[1] = r->has_vel ? r->row[COL_VY] : 0.0f;
	vel[2] = r->has_vel ? r->row[COL_VZ] : 0.0f;
	vel[3] = 0.0f;
	r->b.n++;
}

/* libcsv's end-of-field callback. */
static void bodies_csv_on_field(void *text, size_t len, void *data)
{
	struct bodies_csv_reader *r = data;
	const char *s = text ? text : "";

	if (r->failed)
		return;
	if (r->field == 0 && r->blank_line) {
		unsigned long more = r->line;

		r->line = r->blank_line;
		bodies_csv_fail(r, "blank line before more data on line %lu (blank lines are allowed only at the end)",
				more);
		return;
	}
	r->prev_end = 0;
	if (!r->header_line)
		bodies_csv_header_field(r, s, len);
	else if (r->field < r->ncols && r->col_kind[r->field] != COL_IGNORED)
		bodies_csv_value(r, r->col_kind[r->field], s, len);
	r->field++;
}

/*
 * libcsv's end-of-row callback; c is the character that ended the row, or
 * -1 at the end of the file. With CSV_REPALL_NL every line ending comes
 * here, so a row of no fields is a blank line, unless it is the '\n' of a
 * "\r\n" that already ended a row.
 */
static void bodies_csv_on_row_end(int c, void *data)
{
	struct bodies_csv_reader *r = data;
	int crlf_tail = c == '\n' && r->prev_end == '\r';

	if (r->failed)
		return;
	r->prev_end = c;
	r->row_line = c == '\n' ? r->line + 1 : r->line;
	if (r->field == 0) {
		if (!crlf_tail && !r->blank_line)
			r->blank_line = r->line;
		return;
	}
	if (!r->header_line)
		bodies_csv_header_end(r);
	else
		bodies_csv_body_end(r);
	r->field = 0;
}

/*
 * Feeds the file to libcsv one physical line at a time, so that every
 * callback knows the line it is on (r->line), and reports libcsv's own
 * errors (quotes out of place) on that line. A leading UTF-8 byte-order
 * mark is skipped. Returns 0, or -1 with the reader failed.
 */
static int bodies_csv_feed(FILE *fp, struct csv_parser *parser,
			   struct bodies_csv_reader *r)
{
	unsigned char buf[16384];
	size_t got, off;
	int first = 1;

	while ((got = fread(buf, 1, sizeof(buf), fp)) > 0) {
		off = 0;
		if (first && got >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
			off = 3;
		first = 0;
		while (off < got) {
			unsigned char *nl = memchr(buf + off, '\n', got - off);
			size_t seg = nl ? (size_t)(nl - buf) + 1 - off : got - off;

			if (csv_parse(parser, buf + off, seg, bodies_csv_on_field,
				      bodies_csv_on_row_end, r) != seg) {
				int code = csv_error(parser);

				bodies_csv_fail(r, "%s%s", csv_strerror(code),
						code == CSV_EPARSE ? " (a quote out of place?)" : "");
			}
			if (r->failed)
				return -1;
			off += seg;
			if (nl)
				r->line++;
		}
	}
	if (ferror(fp)) {
		bodies_csv_fail(r, "read error: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int bodies_read_csv(const char *path, struct bodies *out,
		    char *err, size_t errlen)
{
	struct bodies_csv_reader r = {
		.path = path, .err = err, .errlen = errlen, .line = 1, .row_line = 1,
	};
	struct csv_parser parser;
	int kind, rc = -1;
	FILE *fp;

	*out = (struct bodies){0};
	for (kind = 0; kind < COL_COUNT; kind++)
		r.col_of[kind] = COL_ABSENT;
	fp = fopen(path, "rb");
	if (!fp)
		return bodies_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
	if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI | CSV_REPALL_NL |
			      CSV_APPEND_NULL) != 0) {
		bodies_fail(err, errlen, "%s: out of memory starting the CSV parser", path);
		goto out_close;
	}
	if (bodies_csv_feed(fp, &parser, &r) != 0)
		goto out_free_parser;
	/* csv_fini ends a last row that has no newline; r->line is right for it. */
	if (csv_fini(&parser, bodies_csv_on_field, bodies_csv_on_row_end, &r) != 0) {
		r.line = r.row_line;
		bodies_csv_fail(&r, "%s (a quoted field in the row starting here is never closed)",
				csv_strerror(csv_error(&parser)));
	}
	if (r.failed)
		goto out_free_parser;
	r.line = r.header_line ? r.header_line : 1;
	if (!r.header_line)
		bodies_csv_fail(&r, "no header row (the file is empty or blank); need one naming x,y,z,mass");
	else if (r.b.n == 0)
		bodies_csv_fail(&r, "header but no bodies after it");
	if (r.failed)
		goto out_free_parser;
	bodies_shrink(&r.b);
	*out = r.b;
	r.b = (struct bodies){0};
	rc = 0;
out_free_parser:
	csv_free(&parser);
out_close:
	fclose(fp);
	free(r.col_kind);
	bodies_free(&r.b);
	return rc;
}

/* -------------------------------------------------------------- Tipsy */

/* Header: double time; int nbodies, ndim, nsph, ndark, nstar; int pad. */
#define TIPSY_HEADER_BYTES 32
#define TIPSY_AT_NBODIES 8
#define TIPSY_AT_NDIM 12
#define TIPSY_AT_COUNTS 16 /* nsph, ndark, nstar follow one another */

/* Record kinds, in the order their records follow the header. */
enum tipsy_kind { TIPSY_GAS, TIPSY_DARK, TIPSY_STAR, TIPSY_KINDS };

static const char *const tipsy_kind_names[TIPSY_KINDS] = { "gas", "dark", "star" };
static const char *const tipsy_count_names[TIPSY_KINDS] = { "nsph", "ndark", "nstar" };

/*
 * Floats per record: mass, pos[3], vel[3], then for gas rho, temp,
 * hsmooth, metals, phi; for dark matter eps, phi; for stars metals, tform,
 * eps, phi.
 */
static const int tipsy_record_floats[TIPSY_KINDS] = { 12, 9, 11 };

/* The leading floats of every record: the ones taken (and checked). */
#define TIPSY_USED_FLOATS 7
static const char *const tipsy_used_names[TIPSY_USED_FLOATS] = {
	"mass", "pos[0]", "pos[1]", "pos[2]", "vel[0]", "vel[1]", "vel[2]"
};

/* A decoded header; counts are wide so that no sum of them overflows. */
struct tipsy_header {
	int big_endian;
	long long nbodies, ndim;
	long long count[TIPSY_KINDS];
};

static long long tipsy_record_bytes(int kind)
{
	return 4LL * tipsy_record_floats[kind];
}

static uint32_t tipsy_u32(const unsigned char *p, int big_endian)
{
	if (big_endian)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		       (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[1] << 8 | p[0];
}

/* A 32-bit two's-complement int, without implementation-defined casts. */
static long long tipsy_i32(const unsigned char *p, int big_endian)
{
	uint32_t u = tipsy_u32(p, big_endian);

	return u <= INT32_MAX ? (long long)u : (long long)u - 4294967296LL;
}

static float tipsy_f32(const unsigned char *p, int big_endian)
{
	uint32_t u = tipsy_u32(p, big_endian);
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/*
 * The byte order of a 32-byte header: 0 little-endian, 1 big-endian, as
 * the one in which ndim reads 2 or 3, or -1 when neither does. At most one
 * can (2 or 3 in one order is 2^25 or more in the other).
 */
static int tipsy_byte_order(const unsigned char *raw)
{
	long long le = tipsy_i32(raw + TIPSY_AT_NDIM, 0);
	long long be = tipsy_i32(raw + TIPSY_AT_NDIM, 1);

	if (le == 2 || le == 3)
		return 0;
	if (be == 2 || be == 3)
		return 1;
	return -1;
}

/*
 * Decodes the 32 header bytes into *h and checks them: a byte order in
 * which ndim is 2 or 3, counts >= 0, nbodies = nsph + ndark + nstar > 0.
 * Returns 0, or -1 with a message naming the offending field's offset.
 */
static int tipsy_parse_header(const char *path, const unsigned char *raw,
			      struct tipsy_header *h, char *err, size_t errlen)
{
	int order = tipsy_byte_order(raw), kind;
	const char *endian;

	if (order < 0)
		return bodies_fail(err, errlen,
				   "%s: byte %d: ndim reads %lld little-endian or %lld big-endian, neither 2 nor 3: not a Tipsy file",
				   path, TIPSY_AT_NDIM, tipsy_i32(raw + TIPSY_AT_NDIM, 0),
				   tipsy_i32(raw + TIPSY_AT_NDIM, 1));
	h->big_endian = order;
	endian = order ? "big" : "little";
	h->ndim = tipsy_i32(raw + TIPSY_AT_NDIM, order);
	h->nbodies = tipsy_i32(raw + TIPSY_AT_NBODIES, order);
	for (kind = 0; kind < TIPSY_KINDS; kind++) {
		h->count[kind] = tipsy_i32(raw + TIPSY_AT_COUNTS + 4 * kind, order);
		if (h->count[kind] < 0)
			return bodies_fail(err, errlen,
					   "%s: byte %d: %s is %lld in this %s-endian header; counts must be >= 0",
					   path, TIPSY_AT_COUNTS + 4 * kind,
					   tipsy_count_names[kind], h->count[kind], endian);
	}
	if (h->nbodies != h->count[0] + h->count[1] + h->count[2])
		return bodies_fail(err, errlen,
				   "%s: byte %d: nbodies is %lld but nsph + ndark + nstar = %lld + %lld + %lld = %lld in this %s-endian header",
				   path, TIPSY_AT_NBODIES, h->nbodies, h->count[0],
				   h->count[1], h->count[2],
				   h->count[0] + h->count[1] + h->count[2], endian);
	if (h->nbodies == 0)
		return bodies_fail(err, errlen, "%s: byte %d: the header declares no bodies",
				   path, TIPSY_AT_NBODIES);
	return 0;
}

/* The file size the header calls for. */
static long long tipsy_expected_size(const struct tipsy_header *h)
{
	long long size = TIPSY_HEADER_BYTES;
	int kind;

	for (kind = 0; kind < TIPSY_KINDS; kind++)
		size += h->count[kind] * tipsy_record_bytes(kind);
	return size;
}

/*
 * The message for a file of size bytes, fewer than the header calls for:
 * names the record the data ends in (or before). Returns -1.
 */
static int tipsy_fail_truncated(const char *path, const struct tipsy_header *h,
				long long size, char *err, size_t errlen)
{
	long long start = TIPSY_HEADER_BYTES, record = 0;
	int kind;

	for (kind = 0; kind < TIPSY_KINDS; kind++) {
		long long rb = tipsy_record_bytes(kind);
		long long bytes = h->count[kind] * rb;

		if (size < start + bytes) {
			long long k = (size - start) / rb, into = (size - start) % rb;

			if (into == 0)
				return bodies_fail(err, errlen,
						   "%s: byte %lld: truncated: the file ends before record %lld (%s %lld) of the %lld the header declares (%lld bytes)",
						   path, size, record + k, tipsy_kind_names[kind],
						   k, h->nbodies, tipsy_expected_size(h));
			return bodies_fail(err, errlen,
					   "%s: byte %lld: truncated: the file ends %lld bytes into record %lld (%s %lld) of the %lld the header declares (%lld bytes)",
					   path, size, into, record + k, tipsy_kind_names[kind],
					   k, h->nbodies, tipsy_expected_size(h));
		}
		start += bytes;
		record += h->count[kind];
	}
	return bodies_fail(err, errlen, "%s: byte %lld: truncated", path, size);
}

/*
 * Reads the records that follow the header into b (already allocated for
 * h->nbodies bodies), checking that mass, pos and vel are finite and the
 * mass >= 0. Returns 0, or -1 with a message naming the record.
 */
static int tipsy_read_records(FILE *fp, const char *path,
			      const struct tipsy_header *h, struct bodies *b,
			      char *err, size_t errlen)
{
	unsigned char rec[4 * 12];
	long long at = TIPSY_HEADER_BYTES, record = 0, k;
	float v[TIPSY_USED_FLOATS];
	int kind, i;

	for (kind = 0; kind < TIPSY_KINDS; kind++) {
		size_t rb = (size_t)tipsy_record_bytes(kind);

		for (k = 0; k < h->count[kind]; k++, record++, at += (long long)rb) {
			float *pos = b->pos4 + 4 * record, *vel = b->vel4 + 4 * record;

			if (fread(rec, 1, rb, fp) != rb)
				return bodies_fail(err, errlen,
						   "%s: byte %lld: record %lld (%s %lld): read failed (%s)",
						   path, at, record, tipsy_kind_names[kind], k,
						   ferror(fp) ? strerror(errno) : "file shrank while being read");
			for (i = 0; i < TIPSY_USED_FLOATS; i++) {
				v[i] = tipsy_f32(rec + 4 * i, h->big_endian);
				if (!isfinite(v[i]))
					return bodies_fail(err, errlen,
							   "%s: byte %lld: record %lld (%s %lld): %s is not finite",
							   path, at + 4 * i, record, tipsy_kind_names[kind],
							   k, tipsy_used_names[i]);
			}
			if (v[0] < 0)
				return bodies_fail(err, errlen,
						   "%s: byte %lld: record %lld (%s %lld): mass is %g (masses must be >= 0)",
						   path, at, record, tipsy_kind_names[kind], k, (double)v[0]);
			pos[0] = v[1];
			pos[1] = v[2];
			pos[2] = v[3];
			pos[3] = v[0];
			vel[0] = v[4];
			vel[1] = v[5];
			vel[2] = v[6];
			vel[3] = 0.0f;
		}
	}
	return 0;
}

/* The size of the open file fp, or -1 (errno set) when it has none (a pipe). */
static long long tipsy_file_size(FILE *fp)
{
	long size;

	if (fseek(fp, 0, SEEK_END) != 0)
		return -1;
	size = ftell(fp);
	if (size < 0 || fseek(fp, 0, SEEK_SET) != 0)
		return -1;
	return size;
}

int bodies_read_tipsy(const char *path, struct bodies *out,
		      char *err, size_t errlen)
{
	unsigned char raw[TIPSY_HEADER_BYTES];
	struct bodies b = {0};
	struct tipsy_header h = {0};
	long long size, expected;
	int rc = -1;
	FILE *fp;

	*out = (struct bodies){0};
	fp = fopen(path, "rb");
	if (!fp)
		return bodies_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
	size = tipsy_file_size(fp);
	if (size < 0) {
		bodies_fail(err, errlen, "%s: cannot find the file's size: %s", path, strerror(errno));
		goto out_close;
	}
	if (size < TIPSY_HEADER_BYTES) {
		bodies_fail(err, errlen, "%s: byte %lld: truncated: the file ends inside the %d-byte Tipsy header",
			    path, size, TIPSY_HEADER_BYTES);
		goto out_close;
	}
	if (fread(raw, 1, sizeof(raw), fp) != sizeof(raw)) {
		bodies_fail(err, errlen, "%s: byte 0: reading the header failed", path);
		goto out_close;
	}
	if (tipsy_parse_header(path, raw, &h, err, errlen) != 0)
		goto out_close;
	expected = tipsy_expected_size(&h);
	if (size < expected) {
		tipsy_fail_truncated(path, &h, size, err, errlen);
		goto out_close;
	}
	if (size > expected) {
		bodies_fail(err, errlen, "%s: byte %lld: %lld bytes of trailing data after the last of the %lld records the header declares",
			    path, expected, size - expected, h.nbodies);
		goto out_close;
	}
	if ((unsigned long long)h.nbodies > SIZE_MAX / (4 * sizeof(float))) {
		bodies_fail(err, errlen, "%s: %lld bodies are too many for this machine", path, h.nbodies);
		goto out_close;
	}
	b.n = (size_t)h.nbodies;
	b.pos4 = malloc(b.n * 4 * sizeof(float));
	b.vel4 = malloc(b.n * 4 * sizeof(float));
	if (!b.pos4 || !b.vel4) {
		bodies_fail(err, errlen, "%s: out of memory for %zu bodies", path, b.n);
		goto out_free;
	}
	if (tipsy_read_records(fp, path, &h, &b, err, errlen) != 0)
		goto out_free;

	*out = b;
	b = (struct bodies){0};
	rc = 0;
out_free:
	bodies_free(&b);
out_close:
	fclose(fp);
	return rc;
}

/* ------------------------------------------------ format detection */

int bodies_read_file(const char *path, struct bodies *out,
		     char *err, size_t errlen)
{
	unsigned char raw[TIPSY_HEADER_BYTES];
	size_t got;
	FILE *fp;

	*out = (struct bodies){0};
	fp = fopen(path, "rb");
	if (!fp)
		return bodies_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
	got = fread(raw, 1, sizeof(raw), fp);
	if (ferror(fp)) {
		int saved = errno;

		fclose(fp);
		return bodies_fail(err, errlen, "%s: read error: %s", path, strerror(saved));
	}
	fclose(fp);
	if ((got == sizeof(raw) && tipsy_byte_order(raw) >= 0) ||
	    memchr(raw, '\0', got))
		return bodies_read_tipsy(path, out, err, errlen);
	return bodies_read_csv(path, out, err, errlen);
}

/* -------------------------------------------------------- CSV writer */

/*
 * Checks that b holds what bodies_read_csv would accept: bodies, finite
 * values, masses >= 0. Returns 0, or -1 with a message naming the body.
 */
static int bodies_check_writable(const char *path, const struct bodies *b,
				 char *err, size_t errlen)
{
	static const char *const pos_names[4] = { "x", "y", "z", "mass" };
	static const char *const vel_names[3] = { "vx", "vy", "vz" };
	size_t i, j;

	if (!b || b->n == 0 || !b->pos4)
		return bodies_fail(err, errlen, "%s: no bodies to write", path);
	for (i = 0; i < b->n; i++) {
		const float *p = b->pos4 + 4 * i;

		for (j = 0; j < 4; j++)
			if (!isfinite(p[j]))
				return bodies_fail(err, errlen, "%s: body %zu: %s is not finite; not writing it",
						   path, i, pos_names[j]);
		for (j = 0; b->vel4 && j < 3; j++)
			if (!isfinite(b->vel4[4 * i + j]))
				return bodies_fail(err, errlen, "%s: body %zu: %s is not finite; not writing it",
						   path, i, vel_names[j]);
		if (p[3] < 0)
			return bodies_fail(err, errlen, "%s: body %zu: mass is %g (masses must be >= 0); not writing it",
					   path, i, (double)p[3]);
	}
	return 0;
}

int bodies_write_csv(const char *path, const struct bodies *b,
		     char *err, size_t errlen)
{
	const float zero[4] = {0};
	size_t i;
	FILE *fp;

	if (bodies_check_writable(path, b, err, errlen) != 0)
		return -1;
	fp = fopen(path, "w");
	if (!fp)
		return bodies_fail(err, errlen, "%s: cannot create: %s", path, strerror(errno));
	errno = 0;
	fputs("x,y,z,mass,vx,vy,vz\n", fp);
	/* %.9g: FLT_DECIMAL_DIG digits, so strtof gives back the same float. */
	for (i = 0; i < b->n && !ferror(fp); i++) {
		const float *p = b->pos4 + 4 * i;
		const float *v = b->vel4 ? b->vel4 + 4 * i : zero;

		fprintf(fp, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n",
			(double)p[0], (double)p[1], (double)p[2], (double)p[3],
			(double)v[0], (double)v[1], (double)v[2]);
	}
	if (ferror(fp) | (fclose(fp) != 0)) {
		int saved = errno;

		remove(path);
		return bodies_fail(err, errlen, "%s: write failed: %s", path,
				   saved ? strerror(saved) : "unknown error");
	}
	return 0;
}
