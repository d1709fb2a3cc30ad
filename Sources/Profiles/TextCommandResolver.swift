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
  /// Every item filled in, or the first field that cannot be.
  public static func resolve(_ commands: [TextCommand], _ variables: TemplateVariables)
    -> Result<[ResolvedTextCommand], DesiredResolver.Failure>
  {
    var resolved: [ResolvedTextCommand] = []
    for (index, command) in commands.enumerated() {
      let filled = item(command, index: index, variables)
      guard let item = filled.resolved else { return .failure(filled.failures[0]) }
      resolved.append(item)
    }
    return .success(resolved)
  }

  /// Every field of every item that cannot be filled in, in order: the preflight of `profile check` and of a
  /// campaign reports them all at once, as for `desired` (`DesiredResolver.failures`).
  public static func failures(_ commands: [TextCommand], _ variables: TemplateVariables) -> [DesiredResolver.Failure] {
    commands.enumerated().flatMap { index, command in item(command, index: index, variables).failures }
  }

  /// One item filled in (expect, query, set), or each of its fields that cannot be.
  static func item(_ command: TextCommand, index: Int, _ variables: TemplateVariables)
    -> (resolved: ResolvedTextCommand?, failures: [DesiredResolver.Failure])
  {
    var failures: [DesiredResolver.Failure] = []
    func fail(_ key: String, _ message: String) {
      failures.append(DesiredResolver.Failure(path: command.path.appending(key), message: message))
    }
    func fill(_ key: String, _ text: String, escaping: @escaping (String) -> String = { $0 }) -> String? {
      switch Template(text).render(variables, escaping: escaping) {
      case .success(let filled): return filled
      case .failure(let e):
        fail(key, e.message)
        return nil
      }
    }
    var expect: TextExpectation?
    switch command.expect {
    case .text(let t): expect = fill("expect", t).map { .text($0) }
    case .regex(let r):
      if let filled = fill("expect", r, escaping: TextExpectationMatcher.escaped) {
        if let problem = TextExpectationMatcher.compileProblem(filled) {
          fail("expect", "invalid regular expression \"\(filled.echoed)\" once filled in: \(problem)")
        } else {
          expect = .regex(filled)
        }
      }
    }
    let query = fill("query", command.query)
    let set = fill("set", command.set)
    for (key, text) in [("query", query), ("set", set)]
    where text?.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) == true {
      fail(key, "once filled in, the command holds a line break, which would send two commands")
    }
    guard failures.isEmpty, let expect, let query, let set else { return (nil, failures) }
    return (
      ResolvedTextCommand(
        index: index, query: query, expect: expect, set: set, secret: command.secret,
        timeoutFirst: command.timeoutFirst, timeoutNext: command.timeoutNext),
      []
    )
  }
}

extension ResolvedTextCommand {
  /// The item as a planned change: the query as key, the answer as shown as old value, the set as shown
  /// as new value (both masked when secret).
  public func change(answer lines: [String]) -> ConfigChange {
    ConfigChange(scope: .command(index), key: query, old: .text(shown(lines)), new: .text(shownSet))
  }
}
