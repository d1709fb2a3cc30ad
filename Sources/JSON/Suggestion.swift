import BeaconCore

/// "Did you mean …?" for unknown keys: the closest known key within a small edit distance.
public enum Suggestion {
  public static func closest(to word: String, in candidates: [String]) -> String? {
    // No key is longer than this: a longer word is no typo of one, and costs a distance per candidate.
    guard word.utf8.count <= TerminalText.echoLimit else { return nil }
    let scored = candidates.map { ($0, distance(word.lowercased(), $0.lowercased())) }
    guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(2, word.count / 3) else { return nil }
    return best.0
  }

  /// Levenshtein distance.
  public static func distance(_ a: String, _ b: String) -> Int {
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
