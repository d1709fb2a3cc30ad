import BeaconCore
import JSON
import KBeacon

/// Every diagnostic of one decoding, in file order. Thrown when non-empty.
public struct ProfileDiagnostics: Error, Sendable, CustomStringConvertible {
  public var all: [JSONDiagnostic]
  /// What the diagnostics are about, for the closing line: "the profile", or "the inventory" when only an
  /// inventory file (`--inventory`) was read.
  public var subject: String

  public init(_ all: [JSONDiagnostic], subject: String = "the profile") {
    self.subject = subject
    self.all = all.sorted {
      ($0.position?.offset ?? .max, $0.path.description) < ($1.position?.offset ?? .max, $1.path.description)
    }
  }

  public var description: String {
    let n = all.count
    return all.map(\.description).joined(separator: "\n")
      + "\n\(n) error\(n == 1 ? "" : "s") in \(subject); nothing was sent to any device"
  }
}
