/* sph_vtk.h - particles as VTK XML PolyData files and a ParaView time series (.pvd) of them */
#ifndef HARNESS_SPH_VTK_H
#define HARNESS_SPH_VTK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../core/atomic_file.h"

/*
 * The format. A PolyData file (.vtp) holds n points, one Verts cell per
 * point (so that ParaView draws them without a filter), and point arrays
 * of Float32. Every array is raw appended binary (header_type UInt64,
 * the machine's byte order, Int32 cell ids), not ascii: the floats are
 * the variant's bits exactly (ascii would need %.9g to be exact) and a
 * fluid point with velocity, density and pressure costs 40 bytes instead
 * of some 100 (4.2 million particles: 170 MB a step instead of ~420 MB),
 * written and read without formatting a number. ParaView (VTK 6 and
 * later) reads it as it reads its own files.
 *
 * A time series is a directory holding, for the prefix <base>,
 *   <base>-fluid-<step>.vtp  a file for each recorded step,
 *   <base>-boundary.vtp      the walls (they do not move: one file),
 *   <base>.pvd               the Collection: for each step a DataSet of
 *                            part 0 (the fluid) and one of part 1 (the
 *                            boundary), at timestep = the step's time in
 *                            seconds, the files named relative to it.
 */

/* Most steps a series holds. */
#define SPH_VTK_MAX_STEPS 16

/* One point array: ncomp (1 .. 4) floats a point, point i's first at
 * data[i * stride]; name with its unit ("velocity_m_per_s"). */
struct sph_vtk_array {
	const char *name;
	int ncomp;
	const float *data;
	size_t stride;
};

/*
 * Writes a PolyData file of n points to fp: point i at pos[i * pos_stride]
 * .. + 2 (metres; the Points array is called position_m), its Verts cell,
 * and the narrays arrays as its PointData. Returns 0, or -1 with one line
 * in err: more than INT32_MAX points, an array of 0 or more than 4
 * components, a failed write.
 */
int sph_vtk_polydata(FILE *fp, size_t n, const float *pos, size_t pos_stride,
		     const struct sph_vtk_array *arrays, size_t narrays, char *err, size_t errlen);

/* One DataSet of a Collection: timestep [s], part, file (as it is
 * written: relative to the .pvd). */
struct sph_vtk_dataset {
	double timestep;
	int part;
	const char *file;
};

/* Writes the Collection of the count datasets (.pvd) to fp, each
 * timestep in the fewest digits that read back exactly, file names
 * escaped for XML. 0, or -1 with err. */
int sph_vtk_collection(FILE *fp, const struct sph_vtk_dataset *ds, size_t count, char *err,
		       size_t errlen);

/* The files of a series. */
enum sph_vtk_file { SPH_VTK_FLUID, SPH_VTK_BOUNDARY, SPH_VTK_PVD };

/* The name of the file kind (of step, for SPH_VTK_FLUID) of the series
 * base into buf: "dir/name", or "name" when dir is NULL. 0, or -1 when it
 * does not fit. */
int sph_vtk_file_name(char *buf, size_t len, const char *dir, const char *base,
		      enum sph_vtk_file kind, unsigned long step);

/*
 * A series being written. Each file goes to its temporary file
 * (atomic_file) as it comes and stays there until commit, so a run that
 * fails before commit leaves the directory as it found it (a previous
 * series of the same base included).
 */
struct sph_vtk_series {
	char dir[1024], base[256];
	bool made;	/* the directory was created by open */
	struct atomic_file boundary;
	struct atomic_file fluid[SPH_VTK_MAX_STEPS];
	unsigned long step[SPH_VTK_MAX_STEPS];
	double time[SPH_VTK_MAX_STEPS];
	size_t nsteps;	/* the steps of open */
	size_t written;	/* the fluid files written so far */
	bool have_boundary;
};

/*
 * Starts the series base in directory dir for the nsteps steps of steps
 * (ascending, at most SPH_VTK_MAX_STEPS): dir must be a directory or
 * not exist (it is then created, parents too), and every file of the
 * series must be creatable there (atomic_path_writable). Nothing is
 * written but the directory, which is taken back when open fails.
 * Returns 0, or -1 with one line in err naming the path and the reason
 * (the caller's bad input).
 */
int sph_vtk_series_open(struct sph_vtk_series *s, const char *dir, const char *base,
			const unsigned long *steps, size_t nsteps, char *err, size_t errlen);

/* Writes the boundary file (sph_vtk_polydata). 0, or -1 with err. */
int sph_vtk_series_boundary(struct sph_vtk_series *s, size_t n, const float *pos,
			    size_t pos_stride, const struct sph_vtk_array *arrays, size_t narrays,
			    char *err, size_t errlen);

/* Writes the fluid file of the series' next step, which must be step,
 * at time seconds (sph_vtk_polydata). 0, or -1 with err. */
int sph_vtk_series_step(struct sph_vtk_series *s, unsigned long step, double time, size_t n,
			const float *pos, size_t pos_stride, const struct sph_vtk_array *arrays,
			size_t narrays, char *err, size_t errlen);

/*
 * Makes the series appear, once the boundary and every step are written:
 * removes an old <base>.pvd, commits the .vtp files, then writes and
 * commits <base>.pvd last, so that a .pvd, when there is one, names whole
 * files of its own run. Returns 0, or -1 with err; on failure the .vtp
 * files it committed are removed, the rest aborted, and no .pvd is left.
 * Either way s is finished.
 */
int sph_vtk_series_commit(struct sph_vtk_series *s, char *err, size_t errlen);

/* Gives the series up: its temporary files removed, the directory too
 * when open created it and it is empty. Harmless after commit or twice. */
void sph_vtk_series_abort(struct sph_vtk_series *s);

#endif /* HARNESS_SPH_VTK_H */
