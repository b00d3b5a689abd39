/* vtk_read.h - a strict reader of the PolyData (.vtp) and Collection (.pvd) files harness/sph/sph_vtk.c writes */
#ifndef TESTS_SPH_VTK_READ_H
#define TESTS_SPH_VTK_READ_H

#include "../file_read.h"
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * It reads the files line by line as they are written and fails the
 * calling test on anything else: another header, a tag out of its place,
 * an attribute missing, extra or out of order, a block whose byte count
 * is not its array's, blocks that are not back to back in the order of
 * their tags, bytes after the last one. A ParaView reader is more
 * lenient; this one is for telling that the writer wrote what it means to.
 */

#define VTK_READ_MAX_ARRAYS 16
#define VTK_READ_MAX_DATASETS 64

struct vtk_read_array {
	char section[16];	/* PointData, Points or Verts */
	char type[16];		/* Float32 or Int32 */
	char name[64];
	int ncomp;		/* 1 when the tag has no NumberOfComponents */
	uint64_t offset;
	const unsigned char *data; /* the block's values */
};

struct vtk_read_polydata {
	unsigned char *bytes;	/* the whole file */
	size_t n;		/* NumberOfPoints */
	struct vtk_read_array a[VTK_READ_MAX_ARRAYS];
	size_t na;
};

/* The byte order of this machine as VTK names it. */
static inline const char *vtk_read_byte_order(void)
{
	const uint16_t one = 1;
	unsigned char first;
	memcpy(&first, &one, 1);
	return first ? "LittleEndian" : "BigEndian";
}

/* The whole of path, NUL-terminated, into a new buffer; *len its size. */
static inline unsigned char *vtk_read_file(const char *path, size_t *len)
{
	return file_read_whole(path, len);
}

/* The next line of text at *p (up to '\n', leading blanks skipped) into
 * line; *p moves past it. */
static inline void vtk_read_line(const char *path, const char **p, const char *end, char *line,
				 size_t len)
{
	while (*p < end && **p == ' ')
		(*p)++;
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	cr_assert_not_null(nl, "%s: a line does not end", path);
	cr_assert_lt((size_t)(nl - *p), len, "%s: a line too long", path);
	memcpy(line, *p, (size_t)(nl - *p));
	line[nl - *p] = '\0';
	*p = nl + 1;
}

/* The next line must be want. */
static inline void vtk_read_expect(const char *path, const char **p, const char *end,
				   const char *want)
{
	char line[512];
	vtk_read_line(path, p, end, line, sizeof line);
	cr_assert_str_eq(line, want, "%s: '%s' where '%s' belongs", path, line, want);
}

/* The first two lines of a file of VTK type type. */
static inline void vtk_read_header(const char *path, const char **p, const char *end,
				   const char *type)
{
	char want[256];
	vtk_read_expect(path, p, end, "<?xml version=\"1.0\"?>");
	snprintf(want, sizeof want,
		 "<VTKFile type=\"%s\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">",
		 type, vtk_read_byte_order());
	vtk_read_expect(path, p, end, want);
}

/* Reads path; fails the test unless it is a PolyData file as
 * sph_vtk_polydata writes one. Free with vtk_read_polydata_free. */
static inline void vtk_read_polydata(const char *path, struct vtk_read_polydata *pd)
{
	size_t len;
	char line[512], want[256];
	memset(pd, 0, sizeof *pd);
	pd->bytes = vtk_read_file(path, &len);
	const char *p = (const char *)pd->bytes, *end = p + len;
	vtk_read_header(path, &p, end, "PolyData");
	vtk_read_expect(path, &p, end, "<PolyData>");
	vtk_read_line(path, &p, end, line, sizeof line);
	size_t nverts;
	int used = -1;
	cr_assert(sscanf(line, "<Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" NumberOfLines=\"0\" "
			       "NumberOfStrips=\"0\" NumberOfPolys=\"0\">%n",
			 &pd->n, &nverts, &used) == 2 && used == (int)strlen(line),
		  "%s: the Piece: %s", path, line);
	cr_assert_eq(nverts, pd->n, "%s: a Verts cell per point", path);
	static const char *const sections[] = { "PointData", "Points", "Verts" };
	for (int s = 0; s < 3; s++) {
		snprintf(want, sizeof want, "<%s>", sections[s]);
		vtk_read_expect(path, &p, end, want);
		snprintf(want, sizeof want, "</%s>", sections[s]);
		for (;;) {
			vtk_read_line(path, &p, end, line, sizeof line);
			if (strcmp(line, want) == 0)
				break;
			cr_assert_lt(pd->na, VTK_READ_MAX_ARRAYS, "%s: too many arrays", path);
			struct vtk_read_array *a = &pd->a[pd->na++];
			unsigned long long off;
			char *q = line;
			used = -1;
			cr_assert(sscanf(q, "<DataArray type=\"%15[^\"]\" Name=\"%63[^\"]\"%n", a->type,
					 a->name, &used) == 2 && used > 0,
				  "%s: %s", path, line);
			q += used;
			a->ncomp = 1;
			used = -1;
			if (sscanf(q, " NumberOfComponents=\"%d\"%n", &a->ncomp, &used) == 1 && used > 0)
				q += used;
			used = -1;
			cr_assert(sscanf(q, " format=\"appended\" offset=\"%llu\"/>%n", &off, &used) == 1 &&
					  used == (int)strlen(q),
				  "%s: %s", path, line);
			a->offset = off;
			snprintf(a->section, sizeof a->section, "%s", sections[s]);
			cr_assert(strcmp(a->type, "Float32") == 0 || strcmp(a->type, "Int32") == 0,
				  "%s: type %s", path, a->type);
			cr_assert(a->ncomp >= 1 && a->ncomp <= 4, "%s: %s: %d components", path,
				  a->name, a->ncomp);
		}
	}
	vtk_read_expect(path, &p, end, "</Piece>");
	vtk_read_expect(path, &p, end, "</PolyData>");
	vtk_read_expect(path, &p, end, "<AppendedData encoding=\"raw\">");
	cr_assert(p < end && *p == '_', "%s: the appended data starts with '_'", path);
	const unsigned char *base = (const unsigned char *)p + 1, *q = base;
	for (size_t k = 0; k < pd->na; k++) {
		struct vtk_read_array *a = &pd->a[k];
		uint64_t bytes;
		cr_assert_eq(a->offset, (uint64_t)(q - base), "%s: %s's block is not the next", path,
			     a->name);
		cr_assert_leq(q + sizeof bytes, (const unsigned char *)end, "%s: %s cut", path,
			      a->name);
		memcpy(&bytes, q, sizeof bytes);
		cr_assert_eq(bytes, (uint64_t)pd->n * (uint64_t)a->ncomp * 4u,
			     "%s: %s holds %llu bytes", path, a->name, (unsigned long long)bytes);
		q += sizeof bytes;
		cr_assert_leq(q + bytes, (const unsigned char *)end, "%s: %s cut", path, a->name);
		a->data = q;
		q += bytes;
	}
	const char *tail = "\n  </AppendedData>\n</VTKFile>\n";
	cr_assert_eq((size_t)((const unsigned char *)end - q), strlen(tail), "%s: the end", path);
	cr_assert(memcmp(q, tail, strlen(tail)) == 0, "%s: the end", path);
}

static inline void vtk_read_polydata_free(struct vtk_read_polydata *pd)
{
	free(pd->bytes);
	pd->bytes = NULL;
}

/* The array name of section; fails the test when there is none, or when
 * it is not of type with ncomp components. */
static inline const struct vtk_read_array *vtk_read_find(const struct vtk_read_polydata *pd,
							  const char *section, const char *name,
							  const char *type, int ncomp)
{
	for (size_t k = 0; k < pd->na; k++)
		if (strcmp(pd->a[k].section, section) == 0 && strcmp(pd->a[k].name, name) == 0) {
			cr_assert_str_eq(pd->a[k].type, type, "%s", name);
			cr_assert_eq(pd->a[k].ncomp, ncomp, "%s", name);
			return &pd->a[k];
		}
	cr_assert_fail("no array %s in %s", name, section);
	return NULL;
}

/* Component c of point i of a Float32 array. */
static inline float vtk_read_f32(const struct vtk_read_array *a, size_t i, int c)
{
	float v;
	memcpy(&v, a->data + (i * (size_t)a->ncomp + (size_t)c) * 4, 4);
	return v;
}

/* Point i of an Int32 array. */
static inline int32_t vtk_read_i32(const struct vtk_read_array *a, size_t i)
{
	int32_t v;
	memcpy(&v, a->data + i * 4, 4);
	return v;
}

/* The Verts must be one cell a point: connectivity 0 .. n - 1, offsets
 * (each cell's end) 1 .. n. */
static inline void vtk_read_expect_verts(const struct vtk_read_polydata *pd)
{
	const struct vtk_read_array *c = vtk_read_find(pd, "Verts", "connectivity", "Int32", 1);
	const struct vtk_read_array *o = vtk_read_find(pd, "Verts", "offsets", "Int32", 1);
	for (size_t i = 0; i < pd->n; i++) {
		cr_assert_eq(vtk_read_i32(c, i), (int32_t)i, "connectivity[%zu]", i);
		cr_assert_eq(vtk_read_i32(o, i), (int32_t)i + 1, "offsets[%zu]", i);
	}
}

/* Reads the PolyData file path into pd (vtk_read_polydata), which must
 * hold n points, their Verts and npoint_arrays arrays of PointData;
 * returns its Points. */
static inline const struct vtk_read_array *vtk_read_points(const char *path,
							    struct vtk_read_polydata *pd, size_t n,
							    size_t npoint_arrays)
{
	vtk_read_polydata(path, pd);
	cr_assert_eq(pd->n, n, "%s: %zu points, not %zu", path, pd->n, n);
	cr_assert_eq(pd->na, npoint_arrays + 3, "%s: %zu arrays: %zu of PointData, the points, the Verts' two",
		     path, pd->na, npoint_arrays);
	vtk_read_expect_verts(pd);
	return vtk_read_find(pd, "Points", "position_m", "Float32", 3);
}

/* One DataSet of a Collection. */
struct vtk_read_dataset {
	double timestep;
	int part;
	char file[256];
};

/* Reads the Collection path into ds (room for VTK_READ_MAX_DATASETS);
 * returns how many. Fails the test unless it is as sph_vtk_collection
 * writes it, each timestep a number and nothing else. */
static inline size_t vtk_read_collection(const char *path, struct vtk_read_dataset *ds)
{
	size_t len, count = 0;
	char line[512];
	unsigned char *bytes = vtk_read_file(path, &len);
	const char *p = (const char *)bytes, *end = p + len;
	vtk_read_header(path, &p, end, "Collection");
	vtk_read_expect(path, &p, end, "<Collection>");
	for (;;) {
		vtk_read_line(path, &p, end, line, sizeof line);
		if (strcmp(line, "</Collection>") == 0)
			break;
		cr_assert_lt(count, VTK_READ_MAX_DATASETS, "%s: too many datasets", path);
		struct vtk_read_dataset *d = &ds[count++];
		char t[64], *tend;
		int used = -1;
		cr_assert(sscanf(line, "<DataSet timestep=\"%63[^\"]\" part=\"%d\" file=\"%255[^\"]\"/>%n",
				 t, &d->part, d->file, &used) == 3 && used == (int)strlen(line),
			  "%s: %s", path, line);
		d->timestep = strtod(t, &tend);
		cr_assert(tend != t && *tend == '\0', "%s: timestep '%s'", path, t);
	}
	vtk_read_expect(path, &p, end, "</VTKFile>");
	cr_assert_eq(p, end, "%s: bytes after </VTKFile>", path);
	free(bytes);
	return count;
}

#endif /* TESTS_SPH_VTK_READ_H */
