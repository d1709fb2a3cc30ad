/// A blukii module's standing in the blukii Info Manager, for the audit's "Info Manager" column:
/// whether the ID it advertises is registered there. Only set for blukii modules, and only when resolve is
/// configured (`AuditReport.infoManager`); the resolve itself is the `resolve` command's batch path.
public struct AuditInfoManager: Sendable, Hashable, Codable {
  public enum Registration: String, Sendable, Hashable, Codable {
    /// The Info Manager has an info point for the ID (RESOLVED, or CACHED from a fresh answer).
    case registered
    /// The Info Manager answered with nothing for the ID (NODATA): deployed, not registered.
    case notRegistered = "not registered"
    /// The Info Manager could not be asked (UNRESOLVED).
    case unknown
  }

  /// The blukii ID the module advertises (`BlukiiModule.id`).
  public var id: String
  public var registration: Registration
  /// The info point's name when registered.
  public var infoPoint: String?

  public init(id: String, registration: Registration, infoPoint: String? = nil) {
    self.id = id
    self.registration = registration
    self.infoPoint = infoPoint
  }

  /// `registered (B10001)`, as the CSV, Markdown and HTML cells show it.
  public var text: String { "\(registration.rawValue) (\(id))" }
}
