/// Lets a negative number reach an option's own check. ArgumentParser reads a word that starts with `-` as
/// an option, so `scan --duration -1` failed with "Missing value for '--duration <seconds>'", which hides the
/// mistake; written `--duration=-1` the value reaches the option and its `validate()` says what is allowed
/// ("--duration must be a number of seconds more than 0 …"). This joins `--name -NUMBER` into
/// `--name=-NUMBER` before parsing.
///
/// It changes nothing that parsed before: a `-NUMBER` word after a long option was either that option's
/// value (an option parsed `.unconditional`, e.g. `--rssi-threshold -80`, which `=` also gives it) or an
/// error ("Missing value", or an unknown option after a flag, now "does not take a value"). Words after
/// `--`, short options and a long option already written with `=` are left as they are.
enum NegativeOptionValues {
  static func joined(_ arguments: [String]) -> [String] {
    var result: [String] = []
    result.reserveCapacity(arguments.count)
    var index = arguments.startIndex
    while index < arguments.endIndex {
      let word = arguments[index]
      if word == "--" {
        result.append(contentsOf: arguments[index...])
        break
      }
      let next = arguments.index(after: index)
      if isLongOptionName(word), next < arguments.endIndex, isNegativeNumber(arguments[next]) {
        result.append(word + "=" + arguments[next])
        index = arguments.index(after: next)
        continue
      }
      result.append(word)
      index = next
    }
    return result
  }

  /// `--name` with no `=value`.
  static func isLongOptionName(_ word: String) -> Bool {
    word.hasPrefix("--") && word.count > 2 && !word.contains("=")
  }

  /// `-` and a decimal number: `-1`, `-0.5`, `-.5`, `-1e3` (what `Double` reads, infinities and NaN aside).
  static func isNegativeNumber(_ word: String) -> Bool {
    guard word.count > 1, word.hasPrefix("-"), let second = word.dropFirst().first, second.isNumber || second == "."
    else { return false }
    return Double(word).map { $0.isFinite } ?? false
  }
}
