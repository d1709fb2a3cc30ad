import CPipe
import Glibc

/// The pipe that wakes a thread blocked in `poll`: the waiter polls `readEnd` alongside its socket, and
/// `wake()` writes one byte to `writeEnd`. Both ends are created close-on-exec and non-blocking in one
/// call (`pipe2`, through the CPipe shim: Swift's Glibc does not import that GNU extension), so there is
/// no moment in which a `fork` + `exec` elsewhere in the process (a `Process` run) inherits them, and a
/// wake never blocks. The owner closes both ends with `close()`, exactly once.
struct WakePipe: Sendable {
  let readEnd: Int32
  let writeEnd: Int32

  init(adapter: String? = nil) throws(BlueZError) {
    var ends: [Int32] = [-1, -1]
    guard bp_pipe2(&ends, O_CLOEXEC | O_NONBLOCK) == 0 else { throw BlueZError.current("pipe2", adapter: adapter) }
    readEnd = ends[0]
    writeEnd = ends[1]
  }

  /// Wakes the waiter (a full pipe already wakes it, so a failed write changes nothing).
  func wake() {
    var one: UInt8 = 1
    _ = Glibc.write(writeEnd, &one, 1)
  }

  func close() {
    _ = Glibc.close(readEnd)
    _ = Glibc.close(writeEnd)
  }
}
