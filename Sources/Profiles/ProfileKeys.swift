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

/// "Did you mean …?" for unknown keys: the closest known key within a small edit distance.
enum Suggestion {
  static func closest(to word: String, in candidates: [String]) -> String? {
    // No key is longer than this: a longer word is no typo of one, and costs a distance per candidate.
    guard word.utf8.count <= TerminalText.echoLimit else { return nil }
    let scored = candidates.map { ($0, distance(word.lowercased(), $0.lowercased())) }
    guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(2, word.count / 3) else { return nil }
    return best.0
  }

  /// Levenshtein distance.
  static func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    var row = Array(0...b.count)
    for i in 1...a.count {
      var previous = row[0]
      row[0] = i
      for j in stride(from: 1, through: b.count, by: 1) {
        let current = row[j]
        row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
        previous = current
      }
    }
    return row[b.count]
  }
}
