/*
  The roofline of one core of this machine: the memory bandwidth of a STREAM-like triad
  a = b + s c on arrays far larger than the caches, and the peak rate of double-precision
  multiply-adds with scalar, 256-bit (AVX2/FMA) and 512-bit (AVX-512) vectors, each with enough
  independent chains to hide the latency. CPU time (clock()), the best of --reps runs.

    cc -O2 -o roofline bench/roofline.c && ./roofline [MB per array, default 512] [reps, default 5]

  (bench/kernels.py builds and runs it; no part of the project's build.) Prints one line per
  figure: "roofline triad_GBs X", "roofline peak_scalar_GFs X", "roofline peak_avx2_GFs X",
  "roofline peak_avx512_GFs X" (GF: 10^9 flops, a multiply-add counting 2).
*/
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double Now(void)
{
  return (double)clock() / CLOCKS_PER_SEC;
}

typedef double v4 __attribute__((vector_size(32)));
typedef double v8 __attribute__((vector_size(64)));

#define CHAINS 12
#define ITERS  20000000L

/* x = x * m + a on CHAINS independent chains of scalars: 2 CHAINS flops per iteration */
__attribute__((noinline, target("fma"))) static double PeakScalar(double m, double a)
{
  double x[CHAINS];

  for (int c = 0; c < CHAINS; c++) x[c] = c;
  for (long i = 0; i < ITERS; i++)
    for (int c = 0; c < CHAINS; c++) x[c] = __builtin_fma(x[c], m, a);
  double s = 0;
  for (int c = 0; c < CHAINS; c++) s += x[c];
  return s;
}

__attribute__((noinline, target("avx2,fma"))) static double PeakAVX2(double m, double a)
{
  v4 x[CHAINS], mv = {m, m, m, m}, av = {a, a, a, a};

  for (int c = 0; c < CHAINS; c++) x[c] = (v4){c, c, c, c};
  for (long i = 0; i < ITERS; i++)
    for (int c = 0; c < CHAINS; c++) x[c] = x[c] * mv + av;
  double s = 0;
  for (int c = 0; c < CHAINS; c++) s += x[c][0] + x[c][3];
  return s;
}

__attribute__((noinline, target("avx512f"))) static double PeakAVX512(double m, double a)
{
  v8 x[CHAINS], mv, av;

  for (int l = 0; l < 8; l++) {
    mv[l] = m;
    av[l] = a;
  }
  for (int c = 0; c < CHAINS; c++)
    for (int l = 0; l < 8; l++) x[c][l] = c;
  for (long i = 0; i < ITERS; i++)
    for (int c = 0; c < CHAINS; c++) x[c] = x[c] * mv + av;
  double s = 0;
  for (int c = 0; c < CHAINS; c++) s += x[c][0] + x[c][7];
  return s;
}

int main(int argc, char **argv)
{
  const size_t mb = argc > 1 ? (size_t)atol(argv[1]) : 512, n = mb * 1024 * 1024 / sizeof(double);
  const int    reps = argc > 2 ? atoi(argv[2]) : 5;
  double      *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double)), *c = malloc(n * sizeof(double)), best = 1e30, t, sink = 0;

  if (!a || !b || !c) return 1;
  for (size_t i = 0; i < n; i++) {
    a[i] = 0;
    b[i] = 1;
    c[i] = 2;
  }
  for (int r = 0; r < reps; r++) {
    t = Now();
    for (size_t i = 0; i < n; i++) a[i] = b[i] + 0.5 * c[i];
    t = Now() - t;
    sink += a[n / 2];
    if (t < best) best = t;
  }
  /* 3 arrays streamed (the written one read for ownership too: 4 transfers on most processors;
     STREAM counts 3, as here) */
  printf("roofline triad_GBs %.2f\n", 3.0 * n * sizeof(double) / best / 1e9);
  free(a);
  free(b);
  free(c);
  {
    const double fl[3] = {2.0 * CHAINS * ITERS, 8.0 * CHAINS * ITERS, 16.0 * CHAINS * ITERS};
    const char  *name[3] = {"peak_scalar_GFs", "peak_avx2_GFs", "peak_avx512_GFs"};

    for (int k = 0; k < 3; k++) {
      best = 1e30;
      for (int r = 0; r < reps; r++) {
        t = Now();
        sink += k == 0 ? PeakScalar(0.999999, 1e-7) : k == 1 ? PeakAVX2(0.999999, 1e-7) : PeakAVX512(0.999999, 1e-7);
        t = Now() - t;
        if (t < best) best = t;
      }
      printf("roofline %s %.2f\n", name[k], fl[k] / best / 1e9);
    }
  }
  return sink == 12345.6789; /* keep the results alive */
}
