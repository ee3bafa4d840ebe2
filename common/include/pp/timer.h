/**
 * @file timer.h
 * @brief Timing with CUDA events: warm-up, L2 flushed before every repetition, median and spread.
 */
#ifndef PP_TIMER_H
#define PP_TIMER_H

#ifdef __cplusplus
extern "C" {
#endif

/** A piece of work to time or to run before each timed repetition. */
typedef void (*pp_work)(void *ctx);

/** Summary of repeated timings, in milliseconds. */
typedef struct pp_timing {
  double median_ms; /**< the number to report */
  double min_ms;    /**< fastest repetition */
  double max_ms;    /**< slowest repetition */
  int reps;         /**< repetitions measured (after warm-up) */
} pp_timing;

/**
 * Times device work with CUDA events on the default stream. Each repetition
 * runs @p prepare (untimed, e.g. poisoning outputs), then evicts the L2 cache
 * by reading a buffer twice its size, then times @p work alone.
 * @param prepare  untimed work before each repetition, or NULL
 * @param work     the timed work; it only enqueues device work
 * @param ctx      passed to both
 * @param warmup   untimed repetitions first (module load, clocks, caches)
 * @param reps     timed repetitions, at least 1
 * @return median, minimum and maximum of the timed repetitions
 */
pp_timing pp_time_device(pp_work prepare, pp_work work, void *ctx, int warmup, int reps);

/**
 * Times one repetition of device work with CUDA events on the default stream,
 * after evicting the L2 cache (pp_flush_l2()): what pp_time_device() does each
 * repetition, for callers that do their own work between repetitions.
 * @param work  the timed work; it only enqueues device work
 * @param ctx   passed to @p work
 * @return milliseconds between the events around @p work (it has finished)
 */
double pp_time_once(pp_work work, void *ctx);

/**
 * Times device work with CUDA events on the default stream, as it finds the
 * caches: pp_time_once() without the flush, for a caller that flushes
 * elsewhere (the checker, in its own process, before it asks a runner).
 * @param work  the timed work; it only enqueues device work
 * @param ctx   passed to @p work
 * @return milliseconds between the events around @p work (it has finished)
 */
double pp_time_events(pp_work work, void *ctx);

/**
 * Summarizes repeated timings; sorts @p ms in place.
 * @param ms    milliseconds, one per repetition
 * @param reps  how many, at least 1
 * @return median, minimum and maximum
 */
pp_timing pp_timing_summary(double *ms, int reps);

/**
 * Times host work with a monotonic clock.
 * @param work  the timed work
 * @param ctx   passed to @p work
 * @param reps  repetitions, at least 1
 * @return median, minimum and maximum
 */
pp_timing pp_time_host(pp_work work, void *ctx, int reps);

/**
 * Reads a device buffer twice the L2 size so that the next kernel finds none
 * of its data in L2. The buffer is allocated on first use and kept.
 */
void pp_flush_l2(void);

/**
 * Median of @p n values; sorts @p values in place.
 * @param values  the samples
 * @param n       how many, at least 1
 * @return the median (mean of the middle two when @p n is even)
 */
double pp_median(double *values, int n);

#ifdef __cplusplus
}
#endif

#endif
