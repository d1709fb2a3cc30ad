import Foundation
import Testing

@testable import BeaconProvisionCLI

/// Gives a test (or every test of a suite) its own empty state directory, so the simulated fleet's saved
/// state and the journal never leak between tests or into the developer's own state directory.
struct IsolatedState: TestTrait, SuiteTrait, TestScoping {
  var isRecursive: Bool { true }

  func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void)
    async throws
  {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bp-test-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try await StateDirectory.$override.withValue(dir) { try await function() }
  }
}

extension Trait where Self == IsolatedState {
  /// Each test runs with its own empty state directory.
  static var isolatedState: IsolatedState { IsolatedState() }
}
