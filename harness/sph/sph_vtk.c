/* sph_vtk.c - particles as VTK XML PolyData files and a ParaView time series (.pvd) of them */
#define _POSIX_C_SOURCE 200809L
#include "sph_vtk.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Points a block is packed in before it is written. */
#define SPH_VTK_CHUNK 1024

/* The byte order of this machine, as VTK names it: the appended data is
 * written as it lies in memory. */
static const char *sph_vtk_byte_order(void)
{
	const uint16_t one = 1;
	unsigned char first;
	memcpy(&first, &one, 1);
	return first ? "LittleEndian" : "BigEndian";
}

/* Writes s to fp as an XML attribute value (&, <, > and " escaped). */
static void sph_vtk_put_attr(FILE *fp, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		default: fputc(*s, fp); break;
		}
	}
}

/* One appended block of n points of ncomp floats from data (stride
 * apart): its UInt64 byte count, then the floats. 0 or -1. */
static int sph_vtk_block_f32(FILE *fp, size_t n, int ncomp, const float *data, size_t stride)
{
	const uint64_t bytes = (uint64_t)n * (uint64_t)ncomp * sizeof(float);
	float buf[4 * SPH_VTK_CHUNK];
	if (fwrite(&bytes, sizeof bytes, 1, fp) != 1)
		return -1;
	for (size_t i0 = 0; i0 < n; i0 += SPH_VTK_CHUNK) {
		const size_t m = n - i0 < SPH_VTK_CHUNK ? n - i0 : SPH_VTK_CHUNK;
		for (size_t i = 0; i < m; i++)
			for (int c = 0; c < ncomp; c++)
				buf[i * (size_t)ncomp + (size_t)c] = data[(i0 + i) * stride + (size_t)c];
		if (fwrite(buf, sizeof *buf, m * (size_t)ncomp, fp) != m * (size_t)ncomp)
			return -1;
	}
	return 0;
}

/* One appended block of the n Int32 first, first + 1, ...: the Verts'
 * connectivity (first 0) or their offsets (first 1, each cell's end).
 * 0 or -1. */
static int sph_vtk_block_ids(FILE *fp, size_t n, int32_t first)
{
	const uint64_t bytes = (uint64_t)n * sizeof(int32_t);
	int32_t buf[SPH_VTK_CHUNK];
	if (fwrite(&bytes, sizeof bytes, 1, fp) != 1)
		return -1;
	for (size_t i0 = 0; i0 < n; i0 += SPH_VTK_CHUNK) {
		const size_t m = n - i0 < SPH_VTK_CHUNK ? n - i0 : SPH_VTK_CHUNK;
		for (size_t i = 0; i < m; i++)
			buf[i] = first + (int32_t)(i0 + i);
		if (fwrite(buf, sizeof *buf, m, fp) != m)
			return -1;
	}
	return 0;
}

/* The DataArray tag of an appended array at offset; advances *offset
 * past its block. */
static void sph_vtk_put_array(FILE *fp, const char *type, const char *name, int ncomp,
			      uint64_t bytes, uint64_t *offset)
{
	fprintf(fp, "        <DataArray type=\"%s\" Name=\"", type);
	sph_vtk_put_attr(fp, name);
	fputc('"', fp);
	if (ncomp > 0)
		fprintf(fp, " NumberOfComponents=\"%d\"", ncomp);
	fprintf(fp, " format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)*offset);
	*offset += sizeof(uint64_t) + bytes;
}

int sph_vtk_polydata(FILE *fp, size_t n, const float *pos, size_t pos_stride,
		     const struct sph_vtk_array *arrays, size_t narrays, char *err, size_t errlen)
{
	if (n > (size_t)INT32_MAX) {
		snprintf(err, errlen, "%zu points: a PolyData file of Int32 cells holds at most %d",
			 n, INT32_MAX);
		return -1;
	}
	for (size_t a = 0; a < narrays; a++)
		if (arrays[a].ncomp < 1 || arrays[a].ncomp > 4) {
			snprintf(err, errlen, "point array %s: %d components (1 to 4)", arrays[a].name,
				 arrays[a].ncomp);
			return -1;
		}
	const uint64_t ids = (uint64_t)n * sizeof(int32_t);
	uint64_t offset = 0;
	fprintf(fp, "<?xml version=\"1.0\"?>\n"
		    "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
		    "  <PolyData>\n"
		    "    <Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" NumberOfLines=\"0\" "
		    "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n"
		    "      <PointData>\n",
		sph_vtk_byte_order(), n, n);
	for (size_t a = 0; a < narrays; a++)
		sph_vtk_put_array(fp, "Float32", arrays[a].name, arrays[a].ncomp,
				  (uint64_t)n * (uint64_t)arrays[a].ncomp * sizeof(float), &offset);
	fputs("      </PointData>\n      <Points>\n", fp);
	sph_vtk_put_array(fp, "Float32", "position_m", 3, (uint64_t)n * 3 * sizeof(float), &offset);
	fputs("      </Points>\n      <Verts>\n", fp);
	sph_vtk_put_array(fp, "Int32", "connectivity", 0, ids, &offset);
	sph_vtk_put_array(fp, "Int32", "offsets", 0, ids, &offset);
	fputs("      </Verts>\n    </Piece>\n  </PolyData>\n  <AppendedData encoding=\"raw\">\n_", fp);
	int bad = 0;
	for (size_t a = 0; a < narrays && !bad; a++)
		bad = sph_vtk_block_f32(fp, n, arrays[a].ncomp, arrays[a].data, arrays[a].stride);
	bad = bad || sph_vtk_block_f32(fp, n, 3, pos, pos_stride) ||
	      sph_vtk_block_ids(fp, n, 0) || sph_vtk_block_ids(fp, n, 1) ||
	      fputs("\n  </AppendedData>\n</VTKFile>\n", fp) == EOF || fflush(fp) != 0 || ferror(fp);
	if (bad) {
		snprintf(err, errlen, "writing %zu points: %s", n, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

/* x with the fewest significant digits (at most 17) that read back as x. */
static void sph_vtk_put_exact(FILE *fp, double x)
{
	char buf[40];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	fputs(buf, fp);
}

int sph_vtk_collection(FILE *fp, const struct sph_vtk_dataset *ds, size_t count, char *err,
		       size_t errlen)
{
	fprintf(fp, "<?xml version=\"1.0\"?>\n"
		    "<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
		    "  <Collection>\n",
		sph_vtk_byte_order());
	for (size_t k = 0; k < count; k++) {
		fputs("    <DataSet timestep=\"", fp);
		sph_vtk_put_exact(fp, ds[k].timestep);
		fprintf(fp, "\" part=\"%d\" file=\"", ds[k].part);
		sph_vtk_put_attr(fp, ds[k].file);
		fputs("\"/>\n", fp);
	}
	if (fputs("  </Collection>\n</VTKFile>\n", fp) == EOF || fflush(fp) != 0 || ferror(fp)) {
		snprintf(err, errlen, "writing the collection: %s", strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

int sph_vtk_file_name(char *buf, size_t len, const char *dir, const char *base,
		      enum sph_vtk_file kind, unsigned long step)
{
	const char *sep = dir ? "/" : "";
	int w;
	if (!dir)
		dir = "";
	switch (kind) {
	case SPH_VTK_FLUID: w = snprintf(buf, len, "%s%s%s-fluid-%lu.vtp", dir, sep, base, step); break;
	case SPH_VTK_BOUNDARY: w = snprintf(buf, len, "%s%s%s-boundary.vtp", dir, sep, base); break;
	default: w = snprintf(buf, len, "%s%s%s.pvd", dir, sep, base); break;
	}
	return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* The path of one of the series' files into buf (PATH_MAX-sized). */
static int sph_vtk_series_path(const struct sph_vtk_series *s, char *buf, size_t len,
			       enum sph_vtk_file kind, unsigned long step, char *err,
			       size_t errlen)
{
	if (sph_vtk_file_name(buf, len, s->dir, s->base, kind, step) != 0) {
		snprintf(err, errlen, "%s/%s: the name of the series' files is too long", s->dir,
			 s->base);
		return -1;
	}
	return 0;
}

int sph_vtk_series_open(struct sph_vtk_series *s, const char *dir, const char *base,
			const unsigned long *steps, size_t nsteps, char *err, size_t errlen)
{
	struct stat st;
	char path[1400];
	memset(s, 0, sizeof *s);
	if (nsteps > SPH_VTK_MAX_STEPS) {
		snprintf(err, errlen, "%zu steps: a series holds at most %d", nsteps, SPH_VTK_MAX_STEPS);
		return -1;
	}
	if (snprintf(s->dir, sizeof s->dir, "%s", dir) >= (int)sizeof s->dir ||
	    snprintf(s->base, sizeof s->base, "%s", base) >= (int)sizeof s->base || !dir[0]) {
		snprintf(err, errlen, "%s: not a usable directory name (1 to %zu characters)", dir,
			 sizeof s->dir - 1);
		return -1;
	}
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a directory (the series' files go into a directory, created when missing)", dir);
		return -1;
	}
	s->made = access(dir, F_OK) != 0;
	if (atomic_mkdir_p(dir) != 0 || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: cannot create the directory: %s", dir, strerror(errno));
		goto out_unmake;
	}
	memcpy(s->step, steps, nsteps * sizeof *steps);
	s->nsteps = nsteps;
	if (sph_vtk_series_path(s, path, sizeof path, SPH_VTK_PVD, 0, err, errlen) != 0 ||
	    atomic_path_writable(path, err, errlen) != 0 ||
	    sph_vtk_series_path(s, path, sizeof path, SPH_VTK_BOUNDARY, 0, err, errlen) != 0 ||
	    atomic_path_writable(path, err, errlen) != 0)
		goto out_unmake;
	for (size_t k = 0; k < nsteps; k++)
		if (sph_vtk_series_path(s, path, sizeof path, SPH_VTK_FLUID, steps[k], err, errlen) != 0 ||
		    atomic_path_writable(path, err, errlen) != 0)
			goto out_unmake;
	return 0;

out_unmake:
	if (s->made)
		rmdir(dir);
	s->made = false;
	return -1;
}

/* Writes one PolyData file of the series into af, opened here. */
static int sph_vtk_series_write(struct sph_vtk_series *s, struct atomic_file *af,
				enum sph_vtk_file kind, unsigned long step, size_t n,
				const float *pos, size_t pos_stride,
				const struct sph_vtk_array *arrays, size_t narrays, char *err,
				size_t errlen)
{
	char path[1400], why[256];
	if (sph_vtk_series_path(s, path, sizeof path, kind, step, err, errlen) != 0 ||
	    atomic_file_open(af, path, err, errlen) != 0)
		return -1;
	if (sph_vtk_polydata(af->fp, n, pos, pos_stride, arrays, narrays, why, sizeof why) != 0) {
		snprintf(err, errlen, "%s: %s", path, why);
		atomic_file_abort(af);
		return -1;
	}
	return 0;
}

int sph_vtk_series_boundary(struct sph_vtk_series *s, size_t n, const float *pos,
			    size_t pos_stride, const struct sph_vtk_array *arrays, size_t narrays,
			    char *err, size_t errlen)
{
	if (s->have_boundary) {
		snprintf(err, errlen, "%s/%s: the boundary is written once", s->dir, s->base);
		return -1;
	}
	if (sph_vtk_series_write(s, &s->boundary, SPH_VTK_BOUNDARY, 0, n, pos, pos_stride, arrays,
				 narrays, err, errlen) != 0)
		return -1;
	s->have_boundary = true;
	return 0;
}

int sph_vtk_series_step(struct sph_vtk_series *s, unsigned long step, double time, size_t n,
			const float *pos, size_t pos_stride, const struct sph_vtk_array *arrays,
			size_t narrays, char *err, size_t errlen)
{
	if (s->written == s->nsteps || s->step[s->written] != step) {
		snprintf(err, errlen, "%s/%s: step %lu is not the series' next", s->dir, s->base, step);
		return -1;
	}
	if (sph_vtk_series_write(s, &s->fluid[s->written], SPH_VTK_FLUID, step, n, pos, pos_stride,
				 arrays, narrays, err, errlen) != 0)
		return -1;
	s->time[s->written++] = time;
	return 0;
}

int sph_vtk_series_commit(struct sph_vtk_series *s, char *err, size_t errlen)
{
	char pvd[1400], names[2][SPH_VTK_MAX_STEPS][320];
	struct sph_vtk_dataset ds[2 * SPH_VTK_MAX_STEPS];
	struct atomic_file af = { 0 };
	size_t committed = 0; /* the boundary, then fluid files, in that order */
	if (!s->have_boundary || s->written != s->nsteps) {
		snprintf(err, errlen, "%s/%s: the series is not complete (boundary %s, %zu of %zu steps)",
			 s->dir, s->base, s->have_boundary ? "written" : "missing", s->written,
			 s->nsteps);
		goto out_abort;
	}
	if (sph_vtk_series_path(s, pvd, sizeof pvd, SPH_VTK_PVD, 0, err, errlen) != 0)
		goto out_abort;
	if (unlink(pvd) != 0 && errno != ENOENT) {
		snprintf(err, errlen, "%s: cannot remove the old series: %s", pvd, strerror(errno));
		goto out_abort;
	}
	if (atomic_file_commit(&s->boundary, err, errlen) != 0)
		goto out_abort;
	committed = 1;
	for (size_t k = 0; k < s->nsteps; k++, committed++)
		if (atomic_file_commit(&s->fluid[k], err, errlen) != 0)
			goto out_abort;
	for (size_t k = 0; k < s->nsteps; k++) {
		sph_vtk_file_name(names[0][k], sizeof names[0][k], NULL, s->base, SPH_VTK_FLUID,
				  s->step[k]);
		sph_vtk_file_name(names[1][k], sizeof names[1][k], NULL, s->base, SPH_VTK_BOUNDARY,
				  0);
		ds[2 * k] = (struct sph_vtk_dataset){ s->time[k], 0, names[0][k] };
		ds[2 * k + 1] = (struct sph_vtk_dataset){ s->time[k], 1, names[1][k] };
	}
	if (atomic_file_open(&af, pvd, err, errlen) != 0)
		goto out_abort;
	char why[256];
	if (sph_vtk_collection(af.fp, ds, 2 * s->nsteps, why, sizeof why) != 0) {
		snprintf(err, errlen, "%s: %s", pvd, why);
		atomic_file_abort(&af);
		goto out_abort;
	}
	if (atomic_file_commit(&af, err, errlen) != 0)
		goto out_abort;
	s->made = false;
	return 0;

out_abort:
	for (size_t c = 0; c < committed; c++) {
		char path[1400];
		if (c == 0)
			sph_vtk_file_name(path, sizeof path, s->dir, s->base, SPH_VTK_BOUNDARY, 0);
		else
			sph_vtk_file_name(path, sizeof path, s->dir, s->base, SPH_VTK_FLUID,
					  s->step[c - 1]);
		unlink(path);
	}
	sph_vtk_series_abort(s);
	return -1;
}

void sph_vtk_series_abort(struct sph_vtk_series *s)
{
	atomic_file_abort(&s->boundary);
	for (size_t k = 0; k < SPH_VTK_MAX_STEPS; k++)
		atomic_file_abort(&s->fluid[k]);
	if (s->made)
		rmdir(s->dir);
	s->made = false;
}
