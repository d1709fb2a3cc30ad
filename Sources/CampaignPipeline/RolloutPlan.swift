/// A staged firmware rollout (`dfu update --rollout canary=N,waves=P%,…,100% --max-failures P%`, as hawkBit and Memfault stage theirs):
/// a canary group of `canary` devices first, then waves reaching the cumulative percentages of the remaining
/// devices, each started only when the one before finished with failures at or under `maxFailures` percent
/// of its devices (`RolloutWaves` runs it). No standard fixes the syntax; this is the choice [I]:
/// - `canary=N` comes first, N ≥ 1; then `waves=` and its percentages, each `P%` (1…100), strictly increasing,
///   the last 100% (every device is reached once the rollout passes).
/// - `--max-failures P%` is 0…100 percent of a wave's devices; without it 0% (any failure stops) [I].
public struct RolloutPlan: Sendable, Hashable {
  public var canary: Int
  /// Cumulative percentages of the devices after the canary, strictly increasing, the last 100.
  public var waves: [Int]
  /// Failures a wave may have, in percent of its devices (at or under: the next wave starts).
  public var maxFailures: Int

  /// The form `--rollout` takes, as usage errors name it.
  public static let form =
    "canary=N,waves=P%,P%,…,100% (N ≥ 1; percentages increasing, the last 100%), e.g. canary=2,waves=10%,25%,100%"

  public init(canary: Int, waves: [Int], maxFailures: Int = 0) {
    (self.canary, self.waves, self.maxFailures) = (canary, waves, maxFailures)
  }

  /// Parses `--rollout TEXT` and `--max-failures TEXT` (nil: 0%); a wrong one throws `RolloutPlanError`, a
  /// sentence naming the option, what was wrong and the allowed form.
  public init(rollout text: String, maxFailures: String?) throws(RolloutPlanError) {
    func bad(_ why: String) -> RolloutPlanError { RolloutPlanError("--rollout \(text): \(why); expected \(Self.form)") }
    let items = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    guard let first = items.first, first.hasPrefix("canary=") else { throw bad("it must start with canary=N") }
    guard let canary = Int(first.dropFirst("canary=".count)), canary >= 1 else {
      throw bad("canary must be a whole number ≥ 1")
    }
    guard items.count >= 2, items[1].hasPrefix("waves=") else { throw bad("waves=… must follow the canary") }
    var waves: [Int] = []
    for (i, item) in items.dropFirst().enumerated() {
      let value = i == 0 ? String(item.dropFirst("waves=".count)) : item
      guard value.hasSuffix("%"), let percent = Int(value.dropLast()), (1...100).contains(percent) else {
        throw bad("'\(value)' is not a percentage 1%…100%")
      }
      guard percent > (waves.last ?? 0) else {
        throw bad("the waves' percentages must increase (\(waves.last ?? 0)% then \(percent)%)")
      }
      waves.append(percent)
    }
    guard waves.last == 100 else { throw bad("the last wave must be 100%") }
    self.init(canary: canary, waves: waves, maxFailures: try maxFailures.map(Self.threshold) ?? 0)
  }

  /// The same stages with another threshold.
  public func with(maxFailures: Int) -> RolloutPlan {
    RolloutPlan(canary: canary, waves: waves, maxFailures: maxFailures)
  }

  /// Parses `--max-failures P%` (0…100).
  public static func threshold(_ text: String) throws(RolloutPlanError) -> Int {
    guard text.hasSuffix("%"), let percent = Int(text.dropLast()), (0...100).contains(percent) else {
      throw RolloutPlanError("--max-failures \(text): expected a percentage 0%…100% of a wave's devices, e.g. 5%")
    }
    return percent
  }

  /// The waves of `count` devices, as index ranges into them in their stable order: the canary (at most
  /// `count` devices), then each percentage of the rest, rounded up; empty waves (few devices) are left out
  /// [I]. Each range is numbered as the plan numbers it: 0 the canary, 1… the waves.
  public func partition(_ count: Int) -> [(number: Int, range: Range<Int>)] {
    let canaryEnd = min(canary, count)
    var result: [(number: Int, range: Range<Int>)] = canaryEnd > 0 ? [(0, 0..<canaryEnd)] : []
    let rest = count - canaryEnd
    var start = canaryEnd
    for (i, percent) in waves.enumerated() {
      let end = canaryEnd + (rest * percent + 99) / 100
      if end > start { result.append((i + 1, start..<end)) }
      start = max(start, end)
    }
    return result
  }

  /// The plan as the options give it, and as a run's source records it after `Self.marker`:
  /// `canary=2,waves=10%,25%,100% --max-failures 5%`.
  public var text: String { stages + " --max-failures \(maxFailures)%" }

  /// The canary and waves as `--rollout` takes them: `canary=2,waves=10%,25%,100%`.
  public var stages: String { "canary=\(canary),waves=" + waves.map { "\($0)%" }.joined(separator: ",") }

  /// What follows a firmware run's source in the journal when it is a rollout [I: the journal's run record
  /// has no field of its own for it; the source is what `runs` and `campaign status` show anyway].
  public static let marker = " --rollout "

  /// The rollout a run's recorded source names (`source(_:)`), or nil.
  public init?(recordedSource source: String) {
    guard let range = source.range(of: Self.marker, options: .backwards) else { return nil }
    self.init(text: String(source[range.upperBound...]))
  }

  /// The plan `text` wrote (`canary=2,waves=10%,100% --max-failures 5%`), or nil when it is not one.
  public init?(text: String) {
    let parts = text.components(separatedBy: " --max-failures ")
    guard parts.count == 2, let plan = try? RolloutPlan(rollout: parts[0], maxFailures: parts[1]) else { return nil }
    self = plan
  }

  /// A run's source with this rollout recorded after it.
  public func source(_ source: String) -> String { source + Self.marker + text }

  /// Whether `failures` of a wave of `devices` are over the threshold (the rollout stops).
  public func isOverThreshold(failures: Int, of devices: Int) -> Bool { failures * 100 > maxFailures * devices }

  /// A wave's name in messages: "canary" or "wave 2 (25%)".
  public func name(ofWave number: Int) -> String { number == 0 ? "canary" : "wave \(number) (\(waves[number - 1])%)" }
}

/// A `--rollout` or `--max-failures` the command line must refuse (exit 64): the option, the problem, the form.
public struct RolloutPlanError: Error, Sendable, Equatable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}
