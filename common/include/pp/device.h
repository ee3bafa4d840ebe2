/**
 * @file device.h
 * @brief Facts about the GPU, and its measured copy bandwidth (the roof for "% of copy").
 */
#ifndef PP_DEVICE_H
#define PP_DEVICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What the harness reports about the GPU it runs on. */
typedef struct pp_device {
  int ordinal;               /**< CUDA device number */
  char name[256];            /**< marketing name, e.g. "NVIDIA H100 80GB HBM3" */
  int cc_major;              /**< compute capability, major */
  int cc_minor;              /**< compute capability, minor */
  int sm_count;              /**< streaming multiprocessors */
  int clock_khz;             /**< peak SM clock */
  size_t l2_bytes;           /**< L2 cache size */
  size_t global_bytes;       /**< device memory size */
  double theoretical_gbps;   /**< 2 x memory clock x bus width, in GB/s */
  int driver_version;        /**< e.g. 13000 for CUDA 13.0 */
  int runtime_version;       /**< the CUDA runtime this program was built with */
} pp_device;

/**
 * Reports whether a CUDA device can be used. A machine without a GPU answers
 * cudaErrorNoDevice; one without a driver answers cudaErrorInsufficientDriver.
 * @param why  receives the runtime's message when there is no device (may be NULL)
 * @return 1 if device 0 is usable, else 0
 */
int pp_device_available(const char **why);

/**
 * Opens device 0 and fills @p dev. Where there is no usable device it prints
 * "no CUDA device" and exits with ::PP_EXIT_SKIP.
 * @param dev  receives the facts
 */
void pp_device_open(pp_device *dev);

/**
 * Shared memory that one block of a kernel may use on the current device, in
 * bytes, once the kernel opts in (cudaFuncAttributeMaxDynamicSharedMemorySize):
 * the device's cudaDevAttrMaxSharedMemoryPerBlockOptin, or less where the
 * runner was told `--max-shared-kib N`. A launcher that falls back to a smaller
 * configuration when the full one does not fit asks this rather than the
 * attribute, so that the grader can run the smaller configuration on any GPU
 * (`--max-shared-kib 64`: a GPU of compute capability 7.5), not only on the
 * GPUs that need it. The GPU would still grant a kernel more, so the process
 * that runs the variants watches every launch (CUPTI's callbacks): a kernel
 * whose static plus dynamic shared memory passes the cap fails its run, as
 * it would fail to launch on a GPU that has only that much.
 * @return bytes, at most the device's opt-in limit
 */
int pp_shared_memory_per_block(void);

/**
 * The GPU's FP32 peak: two operations (a fused multiply-add) per FP32 lane
 * per clock, at the peak SM clock, on every multiprocessor; the lanes per
 * multiprocessor by compute capability (64 on 6.0, 7.x and 8.0; 128 on the
 * others from 5.0). The grading's floor (docs/grading-trust.md) takes no kernel to be
 * faster than this.
 * @param dev  the GPU, as pp_device_open() filled it
 * @return operations per second
 */
double pp_device_fp32_peak(const pp_device *dev);

/**
 * The GPU's dense BF16 tensor peak, with FP32 accumulation: operations (two
 * per multiply-add) per clock per multiprocessor by compute capability, at the
 * peak SM clock, on every multiprocessor. From NVIDIA's architecture
 * whitepapers, the per-SM rate that their peak tables divide into:
 * - 9.0, 4096: "NVIDIA H100 Tensor Core GPU Architecture" (H100 SXM5: 989.4
 *   TFLOP/s dense BF16 = 132 SMs x 4096 x 1.83 GHz, the boost clock of its
 *   tensor table);
 * - 8.0, 2048: "NVIDIA A100 Tensor Core GPU Architecture" (312 TFLOP/s = 108
 *   SMs x 2048 x 1.41 GHz);
 * - 8.6, 8.7, 8.9 and 12.x, 1024: "NVIDIA Ampere GA102 GPU Architecture" and
 *   "NVIDIA Ada GPU Architecture" (4 tensor cores of 128 dense FP16/BF16
 *   multiply-adds per clock; the professional boards, e.g. A40 and L40S,
 *   accumulate in FP32 at that rate, the GeForce ones at half of it);
 * - 10.x, 11.x and any newer, 8192: "NVIDIA Blackwell Architecture Technical
 *   Brief" (B200: 2.25 PFLOP/s dense BF16 on 148 SMs, twice Hopper's per clock);
 * - 7.5, 1024: "NVIDIA Turing GPU Architecture" (8 tensor cores of 64 FP16
 *   multiply-adds per clock); Turing has no BF16 tensor instructions, so no
 *   BF16 kernel goes faster there.
 * Each is the fastest board of its capability, so that the grading's floor
 * (docs/grading-trust.md) refuses no honest time.
 * @param dev  the GPU, as pp_device_open() filled it
 * @return operations per second
 */
double pp_device_bf16_tensor_peak(const pp_device *dev);

/**
 * The peak of the unit that bounds a lab (pp_problem::peak): pp_device_fp32_peak()
 * or pp_device_bf16_tensor_peak().
 * @param dev   the GPU
 * @param peak  a ::pp_peak
 * @return operations per second
 */
double pp_device_peak(const pp_device *dev, int peak);

/**
 * @param peak  a ::pp_peak
 * @return the unit's name for people: "FP32" or "BF16 tensor"
 */
const char *pp_peak_name(int peak);

/** @return bytes of device memory free now */
size_t pp_device_free_bytes(void);

/**
 * Measures device-to-device cudaMemcpy bandwidth, counting bytes read plus
 * bytes written: the practical roof for a memory-bound kernel.
 * @param bytes  size of the copy; use far more than the L2 size
 * @return GB/s (1e9 bytes per second), the median of several copies
 */
double pp_device_copy_gbps(size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
