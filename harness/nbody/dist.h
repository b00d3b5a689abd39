/* dist.h - the ranks of a run: MPI when started by mpirun, one rank otherwise */
#ifndef HARNESS_DIST_H
#define HARNESS_DIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One process per rank (one rank per GPU for the GPU variants). A process
 * started by an MPI launcher (mpirun, srun, ...) joins MPI_COMM_WORLD; a
 * plain `bin/harness run` is one rank and never calls MPI, so it needs no
 * launcher and no MPI daemon. Everything below works with one rank
 * without MPI: the collectives then return at once.
 *
 * Every host collective returns 0, or -1 when MPI reported an error (MPI's
 * default handler aborts the job first, so that is rare).
 */

/* Joins MPI when a launcher started this process; with several ranks,
 * only rank 0 keeps its stdout and stderr (the others' go to /dev/null).
 * Returns 0, or -1 with one line in err (MPI could not start). */
int dist_init(int *argc, char ***argv, char *err, size_t errlen);

/* Leaves MPI (after a barrier), closing the GPU communicator first. */
void dist_finalize(void);

int dist_rank(void);       /* 0 .. dist_size() - 1 */
int dist_size(void);       /* ranks in the run, 1 without a launcher */
int dist_local_rank(void); /* rank among the ranks of this host */
int dist_local_size(void); /* ranks on this host */

/* NULL when this build has MPI (the distributed variants can run), else
 * why not ("built without MPI (no mpicc at build time)"). */
const char *dist_unavailable_reason(void);

int dist_barrier(void);
int dist_bcast(void *buf, size_t bytes, int root);
/* Rank r's bytes at r * bytes of buf, on every rank, in place. */
int dist_allgather(void *buf, size_t bytes);
/* root receives every rank's bytes, rank r's at r * bytes of recv. */
int dist_gather(const void *send, size_t bytes, void *recv, int root);
/* root sends rank r the bytes at r * bytes of send. */
int dist_scatter(const void *send, size_t bytes, void *recv, int root);
/* The element-wise sum of every rank's count floats at send, into recv on
 * root (MPI_Reduce). */
int dist_reduce_sum(const float *send, float *recv, size_t count, int root);
/* Element-wise maximum and sum of count doubles over the ranks, in place. */
int dist_allreduce_max(double *v, int count);
int dist_allreduce_sum(double *v, int count);

/*
 * Groups of ranks: the rows and the columns of dist-2d's rank grid. A
 * group is made by every rank of the world together (MPI_Comm_split): the
 * ranks that pass the same color form one group, ordered by key. Within a
 * group, member m is the m-th rank in that order. Without MPI (or with one
 * rank) every group is this rank alone. 0, or -1 when MPI failed.
 */
typedef struct dist_group {
	void *handle; /* MPI_Comm; NULL: this rank alone */
	int rank, size;
} dist_group;
int dist_group_split(int color, int key, dist_group *g);
void dist_group_free(dist_group *g);
/* dist_allgather within the group: member m's bytes at m * bytes of buf. */
int dist_group_allgather(const dist_group *g, void *buf, size_t bytes);
/* The element-wise sum over the members of their count x size floats at
 * send, scattered: member m receives the sum of the m-th count floats in
 * recv (MPI_Reduce_scatter_block). */
int dist_group_reduce_scatter(const dist_group *g, const float *send, float *recv, size_t count);

/*
 * What the exchanges of this rank moved: bytes sent and received since the
 * last reset, counted where each exchange is called, in the accounting of
 * nccl-tests' bus bandwidth (ring algorithms): an all-gather of b bytes
 * per member over n members sends and receives (n - 1) b on every member,
 * a reduce-scatter to b bytes per member the same, a point-to-point
 * message its bytes. The distributed variants count their NCCL calls the
 * same way (dist_traffic_collective).
 */
struct dist_traffic {
	double sent, recv;
};
void dist_traffic_reset(void);
struct dist_traffic dist_traffic_get(void);
void dist_traffic_collective(int members, size_t bytes_per_member);
void dist_traffic_p2p(size_t sent, size_t recv);

/* Non-blocking point-to-point messages (the ring). A request is complete
 * after dist_wait, or after dist_test set *done. */
typedef struct dist_request {
	void *handle;
} dist_request;
int dist_isend(const void *buf, size_t bytes, int dest, dist_request *req);
int dist_irecv(void *buf, size_t bytes, int src, dist_request *req);
int dist_wait(dist_request *reqs, int count);
int dist_test(dist_request *reqs, int count, int *done);

/*
 * Coordinated failure. Every rank calls it at the same point with its own
 * verdict (failed != 0, and msg saying why). When no rank failed it
 * returns -1; otherwise the lowest failing rank, with that rank's message,
 * prefixed "rank R of P: " when there are several ranks, in msg on every
 * rank. msg holds msglen bytes on every rank.
 */
int dist_agree(int failed, char *msg, size_t msglen);

/* Last resort for a failure a rank's peers cannot hear about (they are
 * blocked in a collective with it): prints "harness: MSG" and aborts every
 * rank with exit status 1 (MPI_Abort). Never returns. */
void dist_fatal(const char *msg) __attribute__((noreturn));

/*
 * Fault injection for the tests of the failure paths. With
 * HARNESS_DIST_FAULT=RANK:KIND in the environment, dist_fault(KIND) is
 * true on rank RANK only. Kinds: "alloc" (the rank's allocation asks for
 * an impossible size, so the real out-of-memory path runs), "skip-last"
 * (the rank's forces leave out its last body: a bug validation must
 * catch), and two faults of the exchange, on the first block the rank
 * received from another rank after every exchange: "corrupt" (one byte of
 * it altered in flight) and "lost" (it never arrived: zeros).
 */
bool dist_fault(const char *kind);

#ifdef __cplusplus
}
#endif

#endif
