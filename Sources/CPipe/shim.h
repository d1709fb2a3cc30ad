// beacon-provision: pipe2(2) and posix_spawn_file_actions_addclosefrom_np(3), which Swift's Glibc module
// hides (they need _GNU_SOURCE).
#ifndef BEACON_PROVISION_CPIPE_SHIM_H
#define BEACON_PROVISION_CPIPE_SHIM_H

/// pipe2(2) from glibc (declared here because <unistd.h> only declares it under _GNU_SOURCE).
static inline int bp_pipe2(int fds[2], int flags) {
  extern int pipe2(int pipefd[2], int flags);
  return pipe2(fds, flags);
}

#include <spawn.h>

/// posix_spawn_file_actions_addclosefrom_np from glibc 2.34: the child closes every descriptor from `from` up
/// before it runs (the tests' process spawner, Tests/TestServers/SpawnedProcess.swift).
static inline int bp_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
  extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int);
  return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

#endif
