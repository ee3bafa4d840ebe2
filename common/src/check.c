#include "pp/check.h"

#include <stdio.h>
#include <stdlib.h>

void pp_check_call(cudaError_t err, const char *call, const char *file, int line) {
  if (err == cudaSuccess) return;
  fprintf(stderr, "CUDA error %s (%s)\n  in %s\n  at %s:%d\n", cudaGetErrorName(err),
          cudaGetErrorString(err), call, file, line);
  exit(PP_EXIT_FAIL);
}

void pp_check_status(int status, const char *library, const char *call, const char *file, int line) {
  if (status == 0) return;
  fprintf(stderr, "%s error (status %d)\n  in %s\n  at %s:%d\n", library, status, call, file, line);
  exit(PP_EXIT_FAIL);
}
