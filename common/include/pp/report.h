/**
 * @file report.h
 * @brief The per-lab results table and the same data as JSON.
 */
#ifndef PP_REPORT_H
#define PP_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "pp/device.h"
#include "pp/timer.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One timed implementation: a variant, the library peer, or the CPU reference. */
typedef struct pp_result {
  const char *name;    /**< e.g. "v3-sequential" */
  const char *what;    /**< one line: what changed and why it is faster */
  int index;           /**< position in the lab's ladder; -1 for peer and CPU */
  int ran;             /**< 0 if it was not run */
  int correct;         /**< passed the check after timing */
  pp_timing time;      /**< timings */
  double rel_error;    /**< |got - want| / |want| on the timed data (0 when exact) */
  double bound_ratio;  /**< |got - want| / tolerance: at most 1 when correct */
  double event_gap_ms; /**< grading: median of the checker's time less the runner's event time (NaN if not timed so) */
  char note[256];      /**< why it failed, when it did */
} pp_result;

/** The checker's request path (grading): what a request costs besides its work, taken off every time. */
typedef struct pp_path {
  double overhead_ms; /**< what is taken off every time: empty_ms plus work_ms */
  double empty_ms;    /**< median of the empty requests */
  double spread_ms;   /**< their 90th percentile less their 10th */
  double work_ms;     /**< what a request with work costs more: the checker's requests that hold the GPU for hold_ms, their clock less empty_ms and their events */
  double hold_ms;     /**< how long those requests held the GPU: about the peer's event time (its median time less its median gap), 0.1 ms at least */
  int requests;       /**< how many empty requests were timed; 0 when the times are the runner's own events */
  double runner_empty_ms; /**< median of as many empty requests to the submission's runner: shown beside empty_ms, never taken off (the runner could slow them) */
} pp_path;

/** Everything one bench run measured. */
typedef struct pp_report {
  const char *lab;          /**< e.g. "01-dot-product" */
  const char *title;        /**< e.g. "dot product of two float arrays" */
  char size[96];            /**< the size as printed */
  uint64_t seed;            /**< seed of the timed data */
  const char *dataset;      /**< name of the timed data's distribution */
  int reps;                 /**< timed repetitions */
  int warmup;               /**< untimed repetitions before them */
  const pp_device *device;  /**< the GPU */
  double copy_gbps;         /**< measured device-to-device copy, read + write */
  double bytes;             /**< least DRAM bytes one run must move */
  double flops;             /**< floating-point operations of one run (0: memory-bound lab) */
  int peak;                 /**< the ::pp_peak that bounds a compute-bound lab */
  pp_path path;             /**< how the checker timed the runs, when it did */
  pp_result cpu;            /**< the CPU reference */
  pp_result peer;           /**< the library peer (cuBLAS, CUB) */
  pp_result *variants;      /**< the ladder, in order */
  int count;                /**< entries in @p variants */
} pp_report;

/** Rates and ratios derived from a result; NaN where they do not apply. */
typedef struct pp_metrics {
  double gbps;            /**< report bytes / median time */
  double gflops;          /**< report flops / median time */
  double percent_of_copy; /**< gbps as a percentage of the measured copy bandwidth */
  double percent_of_peak; /**< gflops as a percentage of the lab's peak (pp_device_peak()) */
  double vs_previous;     /**< previous variant's time / this time */
  double vs_baseline;     /**< variant 0's time / this time */
  double vs_cpu;          /**< CPU reference time / this time */
  double vs_peer;         /**< library peer's time / this time */
} pp_metrics;

/**
 * Derives rates and speedups of @p r within @p report.
 * @param report  the run
 * @param r       one of its results
 * @return the metrics
 */
pp_metrics pp_report_metrics(const pp_report *report, const pp_result *r);

/**
 * Prints the aligned table.
 * @param out     where to print
 * @param report  the run
 */
void pp_report_print(FILE *out, const pp_report *report);

/**
 * Writes the run as JSON, through a temporary file renamed into place, so
 * that @p path is never left half-written.
 * @param report  the run
 * @param path    destination
 * @return 0, or -1 with a message on stderr
 */
int pp_report_write_json(const pp_report *report, const char *path);

#ifdef __cplusplus
}
#endif

#endif
