/// A child process's end, awaited without blocking a thread of the cooperative pool (`SpawnedProcess`'s
/// reaper thread resumes the waiters).
public struct ProcessExit: Sendable {
  let process: SpawnedProcess

  /// Returns when the process has terminated (its `terminationStatus` is then valid).
  public func wait() async {
    await process.waitForEnd()
  }
}
