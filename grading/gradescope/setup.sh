#!/bin/sh
# Gradescope runs this once, as root, when it builds the autograder image
# (the bundle is unpacked in /autograder/source). It assumes an image with the
# CUDA Toolkit (nvcc, cuBLAS, CUB) and Debian or Ubuntu's apt: Gradescope's
# own base images have no CUDA, so pick a CUDA "devel" image (docs/grading.md).
# Installs CMake (3.25 or newer), Ninja and patch, then builds one lab once
# to prove the image can grade.
set -eu
cd "$(dirname "$0")"
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  PATH=/usr/local/cuda/bin:$PATH
  export PATH
fi
command -v nvcc >/dev/null 2>&1 || {
  echo "setup.sh: no nvcc: the autograder needs an image with the CUDA Toolkit (docs/grading.md)" >&2
  exit 1
}
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends cmake ninja-build patch ca-certificates bubblewrap
cmake_version=$(cmake --version | awk 'NR == 1 { print $3 }')
if ! printf '3.25\n%s\n' "$cmake_version" | sort -V -C; then
  echo "setup.sh: CMake $cmake_version is older than 3.25: use a newer image (Ubuntu 24.04 has 3.28)" >&2
  exit 1
fi
# A trial grading of the skeleton of the first lab graded: it must build. If
# the image builder has no GPU, the GPU tests skip and grading/grade reports the
# skeleton ungraded (exit code 3): the build is what this checks.
lab=$(sed -n 's/^labs //p' gradescope.conf 2>/dev/null | tr ',' ' ' | awk '{ print $1 }')
if [ -z "$lab" ]; then
  set -- labs/*/
  lab=$(basename "$1")
fi
set -- "labs/$lab/"*.cu
status=0
grading/grade "$1" /tmp/pp-setup-check --labs "$lab" > /tmp/pp-setup-check.log 2>&1 || status=$?
if [ $status -ne 0 ] && [ $status -ne 3 ]; then
  tail -40 /tmp/pp-setup-check.log >&2
  exit 1
fi
grep -q "^$lab.build	pass" /tmp/pp-setup-check/results/tests.tsv || {
  cat "/tmp/pp-setup-check/results/$lab.build.log" >&2
  echo "setup.sh: the skeleton of $lab did not build" >&2
  exit 1
}
rm -rf /tmp/pp-setup-check /tmp/pp-setup-check.log
echo "setup.sh: ready: $(nvcc --version | tail -1), CMake $cmake_version"
