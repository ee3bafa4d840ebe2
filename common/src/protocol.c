#define _POSIX_C_SOURCE 200809L
#include "protocol.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>

double pp_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int pp_send_all(int fd, const void *data, size_t bytes) {
  const char *p = data;
  while (bytes) {
    ssize_t n = send(fd, p, bytes, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    bytes -= (size_t)n;
  }
  return 0;
}

/* Waits until @p fd is readable, as pp_recv_all() says. Returns 0 when
 * readable (or when poll() fails: the read then says why), -2 when the
 * deadline passed. */
static int wait_readable(int fd, double deadline, double spin_until) {
  for (;;) {
    double now = pp_now_s();
    if (deadline > 0 && now >= deadline) return -2;
    int spinning = now < spin_until;
    int wait_ms = spinning ? 0 : deadline > 0 ? (int)((deadline - now) * 1000) + 1 : -1;
    struct pollfd pfd = {fd, POLLIN, 0};
    int ready = poll(&pfd, 1, wait_ms);
    if (ready > 0 || (ready < 0 && errno != EINTR)) return 0;
    if (ready == 0 && !spinning) return -2;
  }
}

int pp_recv_all(int fd, void *data, size_t bytes, double deadline, double spin_until) {
  char *p = data;
  while (bytes) {
    int waited = wait_readable(fd, deadline, spin_until);
    if (waited) return waited;
    ssize_t n = recv(fd, p, bytes, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    bytes -= (size_t)n;
  }
  return 0;
}
