import Glibc
import OwnThreads
import Synchronization
import Testing

/// `Interrupted.retry`: a call that fails with EINTR is made again, any other result (success, or a failure
/// with another errno) comes back at once with its errno; and a real blocking read interrupted by a signal
/// with a handler installed (no SA_RESTART) still returns its bytes.
@Suite(.timeLimit(.minutes(1))) struct InterruptedTests {
  @Test func anInterruptedCallIsMadeAgainAndOtherResultsComeBackAtOnce() {
    var calls = 0
    let result = Interrupted.retry { () -> Int in
      calls += 1
      guard calls > 2 else {
        errno = EINTR
        return -1
      }
      return 5
    }
    #expect(result == 5 && calls == 3)

    calls = 0
    let failed = Interrupted.retry { () -> Int32 in
      calls += 1
      errno = EAGAIN
      return -1
    }
    #expect(failed == -1 && calls == 1)
    #expect(errno == EAGAIN, "errno is the failed call's")
  }

  @Test func aBlockingReadInterruptedBySignalsStillGetsItsBytes() async throws {
    var fds: [Int32] = [0, 0]
    try #require(pipe(&fds) == 0)
    defer {
      close(fds[0])
      close(fds[1])
    }
    let (readEnd, writeEnd) = (fds[0], fds[1])
    // SIGUSR2 with a handler and without SA_RESTART: a read it interrupts fails with EINTR.
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in interruptions.add(1, ordering: .relaxed) }
    action.sa_flags = 0
    sigemptyset(&action.sa_mask)
    var previous = sigaction()
    sigaction(SIGUSR2, &action, &previous)
    defer { sigaction(SIGUSR2, &previous, nil) }

    let reader = Thread.readerStarted(readEnd)
    // Interrupt the blocked read a few times, then give it a byte.
    for _ in 0..<5 {
      try await Task.sleep(for: .milliseconds(20))
      pthread_kill(reader.thread, SIGUSR2)
    }
    var byte: UInt8 = 0x2A
    #expect(write(writeEnd, &byte, 1) == 1)
    #expect(await reader.result.value == 0x2A)
    #expect(interruptions.load(ordering: .relaxed) >= 1, "no signal reached the reading thread")
  }
}

/// Signals the handler saw (a C handler captures nothing; it counts here).
private let interruptions = Atomic(0)

/// A thread blocked in `read` of one byte, through `Interrupted.retry`.
private enum Thread {
  struct Reader {
    var thread: pthread_t
    var result: Task<Int, Never>
  }

  static func readerStarted(_ fd: Int32) -> Reader {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    let box = Box(fd: fd, done: continuation)
    var thread = pthread_t()
    let context = Unmanaged.passRetained(box).toOpaque()
    pthread_create(
      &thread, nil,
      { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        // A new thread inherits its creator's mask; the test runner's may block the signal.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGUSR2)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        var byte: UInt8 = 0
        let n = Interrupted.retry { read(box.fd, &byte, 1) }
        box.done.yield(n == 1 ? Int(byte) : -Int(errno))
        box.done.finish()
        return nil
      }, context)
    pthread_detach(thread)
    let result = Task {
      for await value in stream { return value }
      return -1
    }
    return Reader(thread: thread, result: result)
  }

  final class Box: Sendable {
    let fd: Int32
    let done: AsyncStream<Int>.Continuation
    init(fd: Int32, done: AsyncStream<Int>.Continuation) {
      self.fd = fd
      self.done = done
    }
  }
}
