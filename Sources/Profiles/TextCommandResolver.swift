import BeaconCore

/// One `commands` item filled in for one device: the exact query and set to send and the expectation its
/// answers are held to.
public struct ResolvedTextCommand: Sendable, Hashable {
  /// The item's place in `commands` (`$.commands[index]`).
  public var index: Int
  public var query: String
  /// Filled in; in a regular expression the filled-in values are escaped.
  public var expect: TextExpectation
  public var set: String
  public var secret: Bool
  public var timeoutFirst: Double?
  public var timeoutNext: Double?

  public init(
    index: Int, query: String, expect: TextExpectation, set: String, secret: Bool = false, timeoutFirst: Double? = nil,
    timeoutNext: Double? = nil
  ) {
    self.index = index
    self.query = query
    self.expect = expect
    self.set = set
    self.secret = secret
    self.timeoutFirst = timeoutFirst
    self.timeoutNext = timeoutNext
  }

  /// Whether an answer, as its lines (split at CR/LF, empty ones dropped), is what the item expects.
  public func accepts(_ lines: [String]) -> Bool { TextExpectationMatcher.matches(expect, lines) }

  /// An answer as plans, reports and the journal show it: its lines joined by ` | ` (masked when the item
  /// is secret; `(empty)` when it has no line).
  public func shown(_ lines: [String]) -> String {
    if secret { return Self.mask }
    return lines.isEmpty ? "(empty)" : lines.joined(separator: " | ")
  }

  /// The set command as shown (masked when secret).
  public var shownSet: String { secret ? Self.mask : set }

  public static let mask = "••••••••"
}

/// Fills in every `commands` item for one device (`Template`, as `desired` is filled in).
public enum TextCommandResolver {
  public static func resolve(_ commands: [TextCommand], _ variables: TemplateVariables)
    -> Result<[ResolvedTextCommand], DesiredResolver.Failure>
  {
    var resolved: [ResolvedTextCommand] = []
    for (index, command) in commands.enumerated() {
      func fill(_ key: String, _ text: String, escaping: @escaping (String) -> String = { $0 })
        -> Result<String, DesiredResolver.Failure>
      {
        Template(text).render(variables, escaping: escaping).mapError {
          DesiredResolver.Failure(path: command.path.appending(key), message: $0.message)
        }
      }
      let expect: TextExpectation
      switch command.expect {
      case .text(let t):
        switch fill("expect", t) {
        case .failure(let f): return .failure(f)
        case .success(let filled): expect = .text(filled)
        }
      case .regex(let r):
        switch fill("expect", r, escaping: TextExpectationMatcher.escaped) {
        case .failure(let f): return .failure(f)
        case .success(let filled):
          if let problem = TextExpectationMatcher.compileProblem(filled) {
            return .failure(
              DesiredResolver.Failure(
                path: command.path.appending("expect"),
                message: "invalid regular expression \"\(filled.echoed)\" once filled in: \(problem)"))
          }
          expect = .regex(filled)
        }
      }
      let query: String
      let set: String
      switch (fill("query", command.query), fill("set", command.set)) {
      case (.failure(let f), _), (_, .failure(let f)): return .failure(f)
      case (.success(let q), .success(let s)): (query, set) = (q, s)
      }
      for (key, text) in [("query", query), ("set", set)]
      where text.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) {
        return .failure(
          DesiredResolver.Failure(
            path: command.path.appending(key),
            message: "once filled in, the command holds a line break, which would send two commands"))
      }
      resolved.append(
        ResolvedTextCommand(
          index: index, query: query, expect: expect, set: set, secret: command.secret,
          timeoutFirst: command.timeoutFirst, timeoutNext: command.timeoutNext))
    }
    return .success(resolved)
  }
}

extension ResolvedTextCommand {
  /// The item as a planned change: the query as key, the answer as shown as old value, the set as shown
  /// as new value (both masked when secret).
  public func change(answer lines: [String]) -> ConfigChange {
    ConfigChange(scope: .command(index), key: query, old: .text(shown(lines)), new: .text(shownSet))
  }
}
