// Package worker runs jobs in child processes of the server's own binary,
// each under a memory limit, so that a job that runs out of memory,
// panics or is killed fails alone: the server keeps serving, the job ends
// failed with a sentence that says what happened, and a new worker takes
// the dead one's place for the next job.
//
// The server side is a Pool, whose Execute is the job runner's jobs.Work:
// it hands a job, with the records of the data sets it reads, to an idle
// worker and relays the worker's progress to the runner. A worker is the
// same binary started with MLDR_WORKER_PROTOCOL=1 in its environment; its
// main calls Main, which serves jobs one at a time with the executor it is
// given, reading the data and writing the results through the data
// directory's files (store.Files): a worker never opens the metadata
// database, which the server holds.
//
// The two talk over two pipes, file descriptors 3 (commands, server to
// worker) and 4 (events, worker to server), one JSON object per line; the
// worker's standard error is the server's log. A worker limits itself
// (RLIMIT_AS, with room for the Go runtime's address-space reservations,
// and a soft limit for its garbage collector), and the pool watches each
// worker's resident memory and stops a worker that holds more than the
// limit. Cancel asks the worker to stop and kills it if it has not within
// a second. A worker whose server dies is killed by the kernel
// (PR_SET_PDEATHSIG) and also stops when its command pipe closes.
package worker
