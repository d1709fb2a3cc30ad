import BeaconCore

/// The keys each structural object of a version 1 profile may hold. Field objects (desired root, slots,
/// triggers, sensors) take theirs from `ProfileFields`. The JSON Schema test compares these with
/// `profiles/profile.schema.json`.
public enum ProfileKeys {
  public static let root = [
    "$schema", "version", "description", "select", "inventory", "auth", "allowUnreachable", "desired", "commands",
  ]
  public static let select = ["addresses", "name", "models", "firmware", "minRSSI", "tags"]
  public static let auth = ["passwordEnv", "passwordFile", "newPasswordEnv", "newPasswordFile"]
  /// One item of `commands` (`TextCommand`).
  public static let command = ["query", "expect", "set", "secret", "timeoutFirst", "timeoutNext"]
  public static let desired = ProfileFields.common.map(\.key) + ["slots", "triggers", "sensors"]
}
