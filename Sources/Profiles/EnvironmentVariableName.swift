/// What `auth.passwordEnv` and `auth.newPasswordEnv` may hold: a portable environment variable name (POSIX.1-2017,
/// Base Definitions §8.1: letters, digits and underscores, not starting with a digit) [I: the portable set, though
/// a shell's environment can carry other names; a name outside it is far more often a password pasted where its
/// variable's name belongs, and the profile check then refuses it without repeating it].
public enum EnvironmentVariableName {
  /// The same rule as `isValid(_:)`, for the profile's JSON Schema.
  public static let pattern = "^[A-Za-z_][A-Za-z0-9_]*$"

  /// The rule in words, for a diagnostic's allowed values.
  public static let allowed =
    "the name of the variable that holds the password: ASCII letters, digits and _, not starting with a digit"

  public static func isValid(_ name: String) -> Bool {
    guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
    return name.utf8.allSatisfy { b in
      (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b)
        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || b == UInt8(ascii: "_")
    }
  }
}
