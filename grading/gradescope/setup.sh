#!/bin/sh
# setup.sh: makes a Gradescope autograder image able to build the labs. Gradescope
# runs it once, as root, when it builds the image from the bundle (unpacked in
# /autograder/source); grading/gradescope/Dockerfile runs it the same way for
# the manual Docker configuration. It installs with apt what grading needs and
# Gradescope's base images (gradescope/autograder-base, Ubuntu 22.04 by
# default) lack: a C compiler, Ninja, patch, bubblewrap (the sandbox), the CUDA
# Toolkit 13.0's pieces the build uses (nvcc, the runtime, CUPTI, cuBLAS, CCCL)
# from NVIDIA's apt repository, and CMake 3.25 or newer (pip's `cmake` where
# apt's is older: Ubuntu 22.04 has 3.22). Then it builds the skeleton of the
# first lab graded, to prove the image can build.
#
#   setup.sh            (no arguments)
#
# Gradescope's machines have no GPU: there every GPU test skips and a
# submission is reported ungraded (docs/grading.md, "Gradescope").
# Sources: Gradescope's autograder specification
#   https://gradescope-autograders.readthedocs.io/en/latest/specs/ and
#   https://gradescope-autograders.readthedocs.io/en/latest/manual_docker/;
# NVIDIA's network repositories (cuda-keyring), CUDA Installation Guide for Linux
#   https://docs.nvidia.com/cuda/cuda-installation-guide-linux/;
# CMake's wheels https://pypi.org/project/cmake/.
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
set -eu
cd "$(dirname "$0")"
cuda_version=13-0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends build-essential ninja-build patch ca-certificates curl \
  bubblewrap util-linux python3 python3-pip

if ! command -v nvcc > /dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  PATH=/usr/local/cuda/bin:$PATH
fi
if ! command -v nvcc > /dev/null 2>&1; then
  # NVIDIA's repository for this distribution and machine: ubuntu2204/x86_64, debian12/sbsa...
  # shellcheck source=/dev/null # the distribution's own file
  . /etc/os-release
  distro=$ID$(echo "$VERSION_ID" | tr -d .)
  case $(uname -m) in x86_64) arch=x86_64 ;; aarch64) arch=sbsa ;; *) arch=$(uname -m) ;; esac
  repo=https://developer.download.nvidia.com/compute/cuda/repos/$distro/$arch
  curl -fsSL -o /tmp/cuda-keyring.deb "$repo/cuda-keyring_1.1-1_all.deb" || {
    echo "setup.sh: NVIDIA has no CUDA repository at $repo (this image: $PRETTY_NAME, $(uname -m))" >&2
    exit 1
  }
  dpkg -i /tmp/cuda-keyring.deb
  rm -f /tmp/cuda-keyring.deb
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "cuda-nvcc-$cuda_version" "cuda-cudart-dev-$cuda_version" \
    "cuda-cupti-dev-$cuda_version" "cuda-cccl-$cuda_version" "libcublas-dev-$cuda_version"
  # run_autograder looks for /usr/local/cuda, which NVIDIA's packages point at the toolkit they install.
  [ -e /usr/local/cuda ] || ln -s "cuda-$(echo "$cuda_version" | tr - .)" /usr/local/cuda
  PATH=/usr/local/cuda/bin:$PATH
fi
export PATH
command -v nvcc > /dev/null 2>&1 || { echo "setup.sh: no nvcc after installing the CUDA Toolkit" >&2; exit 1; }

# CMake: apt's where it is 3.25 or newer, else pip's (into /usr/local/bin, ahead of apt's on PATH).
at_least_3_25() {
  printf '3.25\n%s\n' "$1" | sort -V -C
}
cmake_version=$(cmake --version 2> /dev/null | awk 'NR == 1 { print $3 }') || cmake_version=
if [ -z "$cmake_version" ] || ! at_least_3_25 "$cmake_version"; then
  apt-get install -y -qq --no-install-recommends cmake
  cmake_version=$(cmake --version | awk 'NR == 1 { print $3 }')
fi
if ! at_least_3_25 "$cmake_version"; then
  python3 -m pip install --quiet 'cmake>=3.25'
  hash -r
  cmake_version=$(cmake --version | awk 'NR == 1 { print $3 }')
  at_least_3_25 "$cmake_version" || { echo "setup.sh: CMake $cmake_version is older than 3.25" >&2; exit 1; }
fi

# A trial build of the skeleton of the first lab graded: the image must build it.
# It is the course's own file, so it needs no sandbox (--no-sandbox), which the
# image builder may not allow; a submission is graded in one, or not at all.
lab=$(sed -n 's/^labs //p' gradescope.conf 2> /dev/null | tr ',' ' ' | awk '{ print $1 }')
if [ -z "$lab" ]; then
  set -- labs/*/
  lab=$(basename "$1")
fi
set -- "labs/$lab/"*.cu
status=0
grading/grade "$1" /tmp/pp-setup-check --labs "$lab" --no-sandbox > /tmp/pp-setup-check.log 2>&1 || status=$?
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
if ! sh grading/sandbox check; then
  echo "setup.sh: warning: no sandbox can be made while the image is built; if none can when a" \
       "submission is graded either, grading/grade refuses to grade it (docs/grading.md)" >&2
fi
echo "setup.sh: ready: $(nvcc --version | tail -1), CMake $cmake_version"
