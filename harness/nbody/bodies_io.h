/* bodies_io.h - user-supplied N-body initial conditions: CSV and Tipsy readers, CSV writer */
#ifndef BODIES_IO_H
#define BODIES_IO_H

#include <stddef.h>

/*
 * A set of bodies in the harness's layout: body i has position and mass in
 * pos4[4i .. 4i+3] = (x, y, z, mass) and velocity in vel4[4i .. 4i+3] =
 * (vx, vy, vz, 0). The readers always allocate both arrays (vel4 is
 * zero-filled when the file has no velocities); free with bodies_free.
 * An empty set is n = 0 with both pointers NULL.
 */
struct bodies {
	size_t n;
	float *pos4;
	float *vel4;
};

/*
 * All readers below share one contract. *out is overwritten (whatever it
 * held is not freed) and set empty before anything else is done. They
 * return 0 with *out holding at least one body, or -1 with *out empty,
 * nothing leaked, and a one-line message (no trailing newline) in err
 * naming the file and where in it the problem is. err may be NULL or
 * errlen 0 when no message is wanted; a long message is truncated to fit.
 *
 * Every body read has finite x, y, z, mass, vx, vy, vz and mass >= 0
 * (bodies of zero mass are allowed: they are test particles).
 */

/*
 * Reads a CSV file. The first row is a header naming the columns; x, y, z
 * and mass are required, vx, vy, vz are optional (all three or none), other
 * columns are ignored, and the order is free. Names are matched ignoring
 * case and surrounding spaces; a UTF-8 byte-order mark is skipped. Every
 * later row has the header's number of fields, and each used field is a
 * whole finite number as strtof reads it (no trailing text, no nan/inf).
 * Quoting follows RFC 4180 (strictly, through libcsv); LF and CRLF line
 * endings are accepted; blank lines are allowed only at the end.
 * Messages read "path:LINE: what is wrong", LINE counting physical lines
 * from 1.
 */
int bodies_read_csv(const char *path, struct bodies *out,
		    char *err, size_t errlen);

/*
 * Reads a Tipsy file: a 32-byte header (double time; int nbodies, ndim,
 * nsph, ndark, nstar; 4 bytes of padding) followed by nsph gas records of
 * 12 floats, ndark dark-matter records of 9 floats and nstar star records
 * of 11 floats, each starting mass, pos[3], vel[3]. Two layouts have this
 * shape: little-endian, as x86 programs write the C structs (the CUDA
 * nbody sample's files), and big-endian, the XDR "standard" Tipsy format.
 * The byte order is the one in which ndim reads as 2 or 3; the header must
 * then have non-negative counts summing to nbodies, nbodies > 0, and the
 * file must be exactly as long as the header says. Bodies are the records
 * in file order (gas, dark, star); only mass, pos and vel are taken, and
 * only they are checked (the CUDA sample stores an integer particle id in
 * phi, whose bits need not form a finite float). Messages name the byte
 * offset and, for record data, the record: "record R (dark K)", where R
 * counts all records from 0 and so is the body's index in *out, and K
 * counts records of that kind from 0.
 */
int bodies_read_tipsy(const char *path, struct bodies *out,
		      char *err, size_t errlen);

/*
 * Reads a file in whichever of the two formats it is in: Tipsy when its
 * 32-byte header has ndim = 2 or 3 in either byte order, else CSV. Bytes
 * 12-15 of text are never 2 or 3 in binary, so a CSV file is never taken
 * for Tipsy. A file with a NUL byte in its first 32 bytes is binary, not
 * CSV text, and so also goes to the Tipsy reader: a damaged Tipsy header
 * (or a file in some other binary format) gets its message ("not a Tipsy
 * file") rather than a baffling CSV one.
 */
int bodies_read_file(const char *path, struct bodies *out,
		     char *err, size_t errlen);

/* Frees both arrays and leaves b empty. Harmless on an empty set. */
void bodies_free(struct bodies *b);

/*
 * Writes b to path as CSV with the header x,y,z,mass,vx,vy,vz and every
 * value printed with %.9g, enough digits for bodies_read_csv to give back
 * the same floats bit for bit. vel4 may be NULL (velocities written as 0).
 * b is checked first (n > 0, values finite, masses >= 0: what the reader
 * would refuse is not written). Returns 0, or -1 with a one-line message
 * in err; on a failed write the partial file is removed.
 */
int bodies_write_csv(const char *path, const struct bodies *b,
		     char *err, size_t errlen);

#endif /* BODIES_IO_H */
