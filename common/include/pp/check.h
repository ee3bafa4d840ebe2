/**
 * @file check.h
 * @brief CUDA error checking and the exit codes every runner uses.
 *
 * Wrap every CUDA runtime call in PP_CHECK() and follow every kernel launch
 * with PP_CHECK_LAUNCH(): a failure then names the call, the file and the line
 * instead of surfacing later as a wrong answer.
 */
#ifndef PP_CHECK_H
#define PP_CHECK_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Exit codes of every program in the course, as CTest reads them. */
enum pp_exit_code {
  PP_EXIT_PASS = 0,  /**< everything checked was right */
  PP_EXIT_FAIL = 1,  /**< a wrong answer, a CUDA error, or a missed target */
  PP_EXIT_USAGE = 2, /**< bad command line or a size that does not fit */
  PP_EXIT_SKIP = 77  /**< no CUDA device: CTest reports the test as skipped */
};

/** Checks a CUDA runtime call; on failure prints it with file and line and exits. */
#define PP_CHECK(call) pp_check_call((call), #call, __FILE__, __LINE__)

/** Checks the kernel launch just made (bad configuration, missing kernel image). */
#define PP_CHECK_LAUNCH() pp_check_call(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

/** Checks a library call that returns 0 on success (cuBLAS); names @p library on failure. */
#define PP_CHECK_STATUS(library, call) pp_check_status((int)(call), library, #call, __FILE__, __LINE__)

/**
 * Reports a failed CUDA call and exits with ::PP_EXIT_FAIL; returns when @p err is cudaSuccess.
 * @param err   the call's result
 * @param call  the call as written in the source
 * @param file  source file of the call
 * @param line  source line of the call
 */
void pp_check_call(cudaError_t err, const char *call, const char *file, int line);

/**
 * Reports a failed library call and exits with ::PP_EXIT_FAIL; returns when @p status is 0.
 * @param status   the call's status code
 * @param library  the library's name, e.g. "cuBLAS"
 * @param call     the call as written in the source
 * @param file     source file of the call
 * @param line     source line of the call
 */
void pp_check_status(int status, const char *library, const char *call, const char *file, int line);

#ifdef __cplusplus
}
#endif

#endif
