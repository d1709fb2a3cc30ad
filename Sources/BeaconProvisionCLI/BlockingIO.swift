import Dispatch

/// Runs blocking work — file reads, the ioctls that look an adapter up, anything that may sleep in the
/// kernel — on a dispatch queue of its own and awaits the result, so it never holds a thread of Swift's
/// cooperative pool (design.md, "Blocking C calls never run on the cooperative pool"). Meant for short
/// start-up work (profiles, fleet files, the simulator's saved state, adapter lookup); long-lived I/O has
/// its own threads (the fd bearer's reader, the mgmt and HCI sockets).
enum BlockingIO {
  private static let queue = DispatchQueue(label: "beacon-provision.blocking-io", attributes: .concurrent)

  static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      queue.async { continuation.resume(with: Result { try body() }) }
    }
  }
}
