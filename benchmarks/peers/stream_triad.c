/* Memory-bandwidth probe for benchmarks/run.py: a STREAM-style triad and copy (own code, not
 * the official STREAM benchmark).
 *
 *   gcc -O3 -march=native -fopenmp stream_triad.c -o stream_triad
 *   OMP_NUM_THREADS=2 ./stream_triad          prints one JSON object per kernel
 *
 * Three float32 arrays of 2^25 elements (128 MiB each, far beyond any cache), first touched by
 * the threads that later stream them. Each kernel runs REPS times; the median and the best
 * time are reported. GB/s counts the named streams only (triad c = a + 3 b: 3 arrays; copy
 * c = a: 2), not the write-allocate reads of c.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LEN (1L << 25)
#define REPS 20

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int by_value(const void *p, const void *q) {
  double a = *(const double *)p, b = *(const double *)q;
  return a < b ? -1 : a > b;
}

static void report(const char *what, int streams, double *t, double check) {
  qsort(t, REPS, sizeof t[0], by_value);
  double bytes = (double)streams * LEN * sizeof(float);
  printf("{\"peer\": \"C (gcc -O3 -march=native -fopenmp)\", \"workload\": \"BW\", "
         "\"variant\": \"%s, %d threads\", \"median_s\": %.9g, \"min_s\": %.9g, \"reps\": %d, "
         "\"gbps_median\": %.6g, \"gbps_best\": %.6g, \"check\": %g}\n",
         what, omp_get_max_threads(), t[REPS / 2], t[0], REPS, bytes / t[REPS / 2] / 1e9,
         bytes / t[0] / 1e9, check);
}

int main(void) {
  float *a = aligned_alloc(64, LEN * sizeof(float));
  float *b = aligned_alloc(64, LEN * sizeof(float));
  float *c = aligned_alloc(64, LEN * sizeof(float));
  if (!a || !b || !c) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
#pragma omp parallel for schedule(static)
  for (long i = 0; i < LEN; i++) {
    a[i] = 1.0f;
    b[i] = 2.0f;
    c[i] = 0.0f;
  }
  double triad[REPS], copy[REPS], after_triad = 0.0;
  for (int r = 0; r < REPS; r++) {
    double start = seconds();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < LEN; i++) c[i] = a[i] + 3.0f * b[i];
    triad[r] = seconds() - start;
    after_triad = c[LEN / 3]; /* 7 = 1 + 3 * 2 */
    start = seconds();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < LEN; i++) c[i] = a[i];
    copy[r] = seconds() - start;
  }
  report("copy c=a", 2, copy, c[LEN / 3]); /* 1 */
  report("triad c=a+3b", 3, triad, after_triad);
  free(a);
  free(b);
  free(c);
  return 0;
}
