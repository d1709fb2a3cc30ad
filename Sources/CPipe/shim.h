// beacon-provision: pipe2(2), which Swift's Glibc module hides (it needs _GNU_SOURCE).
#ifndef BEACON_PROVISION_CPIPE_SHIM_H
#define BEACON_PROVISION_CPIPE_SHIM_H

/// pipe2(2) from glibc (declared here because <unistd.h> only declares it under _GNU_SOURCE).
static inline int bp_pipe2(int fds[2], int flags) {
  extern int pipe2(int pipefd[2], int flags);
  return pipe2(fds, flags);
}

#endif
