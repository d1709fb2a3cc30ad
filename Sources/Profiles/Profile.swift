/// A declarative profile, version 1: which devices (`select`, `inventory`), how to log in (`auth`), and
/// what each device should be — a KBeacon's configuration (`desired`), or the answers of a text-stream
/// device to text commands (`commands`; the two exclude each other). Decoded by `ProfileDecoder`, which reports every problem with
/// file, line, column and JSON path; the JSON Schema in `profiles/profile.schema.json` describes the same
/// shape and a test keeps the two in step through `ProfileKeys`.
public struct Profile: Sendable, Hashable {
  public static let currentVersion = 1

  /// The file it was read from, for messages and the journal.
  public var file: String
  public var description: String?
  public var select: Selection
  /// A CSV or JSON file of per-device variables keyed by address, relative to the profile's folder.
  public var inventory: String?
  public var auth: Auth
  /// Whether the profile may leave a device with no connectable slot (`DeviceChecks`): false by default,
  /// since such a device can be reached again only by hand (a button press or a power cycle).
  public var allowUnreachable = false
  public var desired: DesiredState
  /// The `commands` section: the profile targets text-stream devices (`TextCommand`); nil for a KBeacon
  /// profile.
  public var commands: [TextCommand]?

  public init(
    file: String, description: String? = nil, select: Selection = Selection(), inventory: String? = nil,
    auth: Auth = Auth(), desired: DesiredState = DesiredState()
  ) {
    self.file = file
    self.description = description
    self.select = select
    self.inventory = inventory
    self.auth = auth
    self.desired = desired
  }
}

/// Where a password comes from. The password itself is never stored in a profile, a plan or the journal.
public enum SecretSource: Sendable, Hashable, CustomStringConvertible {
  /// An environment variable's name.
  case environment(String)
  /// A file whose first line is the secret (path relative to the profile's folder).
  case file(String)
  /// The KBeacon factory default (docs/protocols/kbeacon.md §5), allowed only for the current password.
  case factoryDefault

  public var description: String {
    switch self {
    case .environment(let name): "environment variable \(name)"
    case .file(let path): "file \(path)"
    case .factoryDefault: "the factory default"
    }
  }
}

/// `auth`: the current password's source, and optionally a new one to rotate every device to.
public struct Auth: Sendable, Hashable {
  public var password: SecretSource
  public var newPassword: SecretSource?

  public init(password: SecretSource = .factoryDefault, newPassword: SecretSource? = nil) {
    self.password = password
    self.newPassword = newPassword
  }
}
