/* dist.c - the ranks of a run: MPI when started by mpirun, one rank otherwise */
#define _POSIX_C_SOURCE 200809L
#include "dist.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dist_gpu.h"

#ifdef HARNESS_HAVE_MPI
#include <mpi.h>
_Static_assert(sizeof(MPI_Request) <= sizeof(void *), "an MPI_Request fits in dist_request");
_Static_assert(sizeof(MPI_Comm) <= sizeof(void *), "an MPI_Comm fits in dist_group");
#endif

static struct {
	int rank, size, local_rank, local_size;
	int mpi;        /* MPI_Init was called */
	int stderr_fd;  /* where dist_fatal writes (the rank's own stderr) */
} dist_world = { 0, 1, 0, 1, 0, STDERR_FILENO };

/* Prints "harness: msg" where this rank's stderr really goes. */
static void dist_say(const char *msg)
{
	char line[1024];
	int len = snprintf(line, sizeof line, "harness: %s\n", msg);
	fflush(stderr);
	if (len > 0 && write(dist_world.stderr_fd, line, (size_t)len) < 0)
		return;
}

/* What this rank's exchanges moved since the last reset. */
static struct dist_traffic dist_moved;

void dist_traffic_reset(void)
{
	dist_moved.sent = dist_moved.recv = 0;
}

struct dist_traffic dist_traffic_get(void)
{
	return dist_moved;
}

void dist_traffic_collective(int members, size_t bytes_per_member)
{
	double b = (double)(members > 1 ? members - 1 : 0) * (double)bytes_per_member;
	dist_moved.sent += b;
	dist_moved.recv += b;
}

void dist_traffic_p2p(size_t sent, size_t recv)
{
	dist_moved.sent += (double)sent;
	dist_moved.recv += (double)recv;
}

const char *dist_unavailable_reason(void)
{
#ifdef HARNESS_HAVE_MPI
	return NULL;
#else
	return "built without MPI (no mpicc at build time)";
#endif
}

int dist_rank(void)
{
	return dist_world.rank;
}

int dist_size(void)
{
	return dist_world.size;
}

int dist_local_rank(void)
{
	return dist_world.local_rank;
}

int dist_local_size(void)
{
	return dist_world.local_size;
}

#ifdef HARNESS_HAVE_MPI

/* Whether an MPI launcher started this process: the variables that
 * OpenMPI, PMIx, MPICH (Hydra) and MVAPICH set in every rank. */
static bool dist_launched(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
					     "PMI_SIZE", "MV2_COMM_WORLD_SIZE" };
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
		if (getenv(vars[i]))
			return true;
	return false;
}

/* Only rank 0 speaks: the others' stdout and stderr go to /dev/null, so
 * that every message and table appears once. dist_fatal keeps the rank's
 * own stderr, since a failing rank may be the only one that knows why. */
static void dist_quiet_others(void)
{
	int null = open("/dev/null", O_WRONLY);
	if (dist_world.rank == 0 || null < 0)
		return;
	fflush(stdout);
	fflush(stderr);
	dist_world.stderr_fd = dup(STDERR_FILENO);
	dup2(null, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
	close(null);
}

int dist_init(int *argc, char ***argv, char *err, size_t errlen)
{
	if (dist_world.mpi || !dist_launched())
		return 0;
	int provided, rc = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
	if (rc != MPI_SUCCESS) {
		snprintf(err, errlen, "MPI_Init failed (error %d)", rc);
		return -1;
	}
	dist_world.mpi = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &dist_world.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &dist_world.size);
	MPI_Comm node;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, dist_world.rank, MPI_INFO_NULL,
			    &node);
	MPI_Comm_rank(node, &dist_world.local_rank);
	MPI_Comm_size(node, &dist_world.local_size);
	MPI_Comm_free(&node);
	if (dist_world.size > 1)
		dist_quiet_others();
	return 0;
}

void dist_finalize(void)
{
	dist_gpu_shutdown();
	if (!dist_world.mpi)
		return;
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	dist_world.mpi = 0;
}

/* MPI counts are ints: a buffer travels as bytes, or as floats when it is
 * larger than INT_MAX bytes (only float arrays are). -1 when too large. */
static int dist_count(size_t bytes, MPI_Datatype *type)
{
	*type = bytes <= INT_MAX || bytes % sizeof(float) != 0 ? MPI_BYTE : MPI_FLOAT;
	size_t count = *type == MPI_FLOAT ? bytes / sizeof(float) : bytes;
	return count > INT_MAX ? -1 : (int)count;
}

#define DIST_OK(call) ((call) == MPI_SUCCESS ? 0 : -1)

int dist_barrier(void)
{
	return dist_world.size == 1 ? 0 : DIST_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int dist_bcast(void *buf, size_t bytes, int root)
{
	MPI_Datatype t;
	int c = dist_count(bytes, &t);
	if (dist_world.size == 1)
		return 0;
	return c < 0 ? -1 : DIST_OK(MPI_Bcast(buf, c, t, root, MPI_COMM_WORLD));
}

/* The MPI communicator of a group (NULL: the world). */
static MPI_Comm dist_comm_of(const dist_group *g)
{
	MPI_Comm c = MPI_COMM_WORLD;
	if (g && g->handle)
		memcpy(&c, &g->handle, sizeof c);
	return c;
}

/* An in-place all-gather over g's members (NULL: the world), counted. */
static int dist_allgather_in(const dist_group *g, int members, void *buf, size_t bytes)
{
	MPI_Datatype t;
	int c = dist_count(bytes, &t);
	if (members == 1)
		return 0;
	dist_traffic_collective(members, bytes);
	return c < 0 ? -1 : DIST_OK(MPI_Allgather(MPI_IN_PLACE, 0, t, buf, c, t, dist_comm_of(g)));
}

int dist_allgather(void *buf, size_t bytes)
{
	return dist_allgather_in(NULL, dist_world.size, buf, bytes);
}

int dist_group_split(int color, int key, dist_group *g)
{
	*g = (dist_group){ NULL, 0, 1 };
	if (dist_world.size == 1)
		return 0;
	MPI_Comm c;
	if (MPI_Comm_split(MPI_COMM_WORLD, color, key, &c) != MPI_SUCCESS)
		return -1;
	memcpy(&g->handle, &c, sizeof c);
	MPI_Comm_rank(c, &g->rank);
	MPI_Comm_size(c, &g->size);
	return 0;
}

void dist_group_free(dist_group *g)
{
	if (g->handle) {
		MPI_Comm c = dist_comm_of(g);
		MPI_Comm_free(&c);
	}
	*g = (dist_group){ NULL, 0, 1 };
}

int dist_group_allgather(const dist_group *g, void *buf, size_t bytes)
{
	return dist_allgather_in(g, g->size, buf, bytes);
}

int dist_group_reduce_scatter(const dist_group *g, const float *send, float *recv, size_t count)
{
	if (g->size == 1) {
		memmove(recv, send, count * sizeof(float));
		return 0;
	}
	if (count > INT_MAX)
		return -1;
	dist_traffic_collective(g->size, count * sizeof(float));
	return DIST_OK(MPI_Reduce_scatter_block(send, recv, (int)count, MPI_FLOAT, MPI_SUM,
						dist_comm_of(g)));
}

/* MPI_Gather and MPI_Scatter: one root, equal blocks. With one rank the
 * block is copied. */
typedef int (*dist_rooted_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int,
			      MPI_Comm);

static int dist_rooted(dist_rooted_fn fn, const void *send, size_t bytes, void *recv, int root)
{
	MPI_Datatype t;
	int c = dist_count(bytes, &t);
	if (dist_world.size == 1) {
		memmove(recv, send, bytes);
		return 0;
	}
	return c < 0 ? -1 : DIST_OK(fn(send, c, t, recv, c, t, root, MPI_COMM_WORLD));
}

int dist_gather(const void *send, size_t bytes, void *recv, int root)
{
	return dist_rooted(MPI_Gather, send, bytes, recv, root);
}

int dist_scatter(const void *send, size_t bytes, void *recv, int root)
{
	return dist_rooted(MPI_Scatter, send, bytes, recv, root);
}

int dist_reduce_sum(const float *send, float *recv, size_t count, int root)
{
	if (dist_world.size == 1) {
		memmove(recv, send, count * sizeof(float));
		return 0;
	}
	if (count > INT_MAX)
		return -1;
	return DIST_OK(MPI_Reduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM, root, MPI_COMM_WORLD));
}

int dist_allreduce_max(double *v, int count)
{
	if (dist_world.size == 1)
		return 0;
	return DIST_OK(MPI_Allreduce(MPI_IN_PLACE, v, count, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
}

int dist_allreduce_sum(double *v, int count)
{
	if (dist_world.size == 1)
		return 0;
	return DIST_OK(MPI_Allreduce(MPI_IN_PLACE, v, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
}

/* Starts a send of buf to peer (send set) or a receive from it. */
static int dist_post(bool send, void *buf, size_t bytes, int peer, dist_request *req)
{
	MPI_Datatype t;
	MPI_Request r;
	int c = dist_count(bytes, &t);
	if (c < 0)
		return -1;
	dist_traffic_p2p(send ? bytes : 0, send ? 0 : bytes);
	int rc = send ? MPI_Isend(buf, c, t, peer, 0, MPI_COMM_WORLD, &r)
		      : MPI_Irecv(buf, c, t, peer, 0, MPI_COMM_WORLD, &r);
	memcpy(&req->handle, &r, sizeof r);
	return DIST_OK(rc);
}

int dist_isend(const void *buf, size_t bytes, int dest, dist_request *req)
{
	return dist_post(true, (void *)buf, bytes, dest, req);
}

int dist_irecv(void *buf, size_t bytes, int src, dist_request *req)
{
	return dist_post(false, buf, bytes, src, req);
}

/* Copies count requests out of reqs (their handles) into r. */
static void dist_unpack(const dist_request *reqs, int count, MPI_Request *r)
{
	for (int i = 0; i < count; i++)
		memcpy(&r[i], &reqs[i].handle, sizeof r[i]);
}

static void dist_pack(dist_request *reqs, int count, const MPI_Request *r)
{
	for (int i = 0; i < count; i++)
		memcpy(&reqs[i].handle, &r[i], sizeof r[i]);
}

int dist_wait(dist_request *reqs, int count)
{
	MPI_Request r[8];
	if (count > 8)
		return -1;
	dist_unpack(reqs, count, r);
	int rc = DIST_OK(MPI_Waitall(count, r, MPI_STATUSES_IGNORE));
	dist_pack(reqs, count, r);
	return rc;
}

int dist_test(dist_request *reqs, int count, int *done)
{
	MPI_Request r[8];
	if (count > 8)
		return -1;
	dist_unpack(reqs, count, r);
	int rc = DIST_OK(MPI_Testall(count, r, done, MPI_STATUSES_IGNORE));
	dist_pack(reqs, count, r);
	return rc;
}

void dist_fatal(const char *msg)
{
	dist_say(msg);
	if (dist_world.mpi)
		MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

#else /* one rank, no MPI in this build */

int dist_init(int *argc, char ***argv, char *err, size_t errlen)
{
	(void)argc, (void)argv, (void)err, (void)errlen;
	return 0;
}

void dist_finalize(void)
{
	dist_gpu_shutdown();
}

int dist_barrier(void)
{
	return 0;
}

int dist_bcast(void *buf, size_t bytes, int root)
{
	(void)buf, (void)bytes, (void)root;
	return 0;
}

int dist_allgather(void *buf, size_t bytes)
{
	(void)buf, (void)bytes;
	return 0;
}

int dist_gather(const void *send, size_t bytes, void *recv, int root)
{
	(void)root;
	memmove(recv, send, bytes);
	return 0;
}

int dist_group_split(int color, int key, dist_group *g)
{
	(void)color, (void)key;
	*g = (dist_group){ NULL, 0, 1 };
	return 0;
}

void dist_group_free(dist_group *g)
{
	*g = (dist_group){ NULL, 0, 1 };
}

int dist_group_allgather(const dist_group *g, void *buf, size_t bytes)
{
	(void)g, (void)buf, (void)bytes;
	return 0;
}

int dist_group_reduce_scatter(const dist_group *g, const float *send, float *recv, size_t count)
{
	(void)g;
	memmove(recv, send, count * sizeof(float));
	return 0;
}

int dist_scatter(const void *send, size_t bytes, void *recv, int root)
{
	(void)root;
	memmove(recv, send, bytes);
	return 0;
}

int dist_reduce_sum(const float *send, float *recv, size_t count, int root)
{
	(void)root;
	memmove(recv, send, count * sizeof(float));
	return 0;
}

int dist_allreduce_max(double *v, int count)
{
	(void)v, (void)count;
	return 0;
}

int dist_allreduce_sum(double *v, int count)
{
	(void)v, (void)count;
	return 0;
}

/* With one rank the ring has no transfers: nothing ever sends. */
int dist_isend(const void *buf, size_t bytes, int dest, dist_request *req)
{
	(void)buf, (void)bytes, (void)dest, (void)req;
	return -1;
}

int dist_irecv(void *buf, size_t bytes, int src, dist_request *req)
{
	(void)buf, (void)bytes, (void)src, (void)req;
	return -1;
}

int dist_wait(dist_request *reqs, int count)
{
	(void)reqs;
	return count == 0 ? 0 : -1;
}

int dist_test(dist_request *reqs, int count, int *done)
{
	(void)reqs;
	*done = 1;
	return count == 0 ? 0 : -1;
}

void dist_fatal(const char *msg)
{
	dist_say(msg);
	exit(1);
}

#endif

int dist_agree(int failed, char *msg, size_t msglen)
{
	/* The lowest failing rank is the maximum of (size - rank) over the
	 * ranks that failed. */
	double who = failed ? (double)(dist_world.size - dist_world.rank) : 0.0;
	if (dist_allreduce_max(&who, 1) != 0)
		dist_fatal("MPI failed while the ranks compared their status");
	if (who == 0)
		return -1;
	int rank = dist_world.size - (int)who;
	if (dist_world.size > 1) {
		char *buf = malloc(msglen);
		if (!buf)
			dist_fatal("out of memory while the ranks compared their status");
		if (dist_world.rank == rank)
			snprintf(buf, msglen, "%s", msg);
		if (dist_bcast(buf, msglen, rank) != 0)
			dist_fatal("MPI failed while the ranks compared their status");
		snprintf(msg, msglen, "rank %d of %d: %s", rank, dist_world.size, buf);
		free(buf);
	}
	return rank;
}

bool dist_fault(const char *kind)
{
	const char *spec = getenv("HARNESS_DIST_FAULT");
	char *end;
	if (!spec)
		return false;
	long rank = strtol(spec, &end, 10);
	return end != spec && *end == ':' && rank == dist_world.rank && strcmp(end + 1, kind) == 0;
}
