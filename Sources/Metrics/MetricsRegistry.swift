import Synchronization

/// The counters and gauges a long-running command exposes (`monitor`, and `reconcile` later), read by
/// `MetricsServer`'s `/metrics` as Prometheus text (`PrometheusText`, exposition format 0.0.4). Families are
/// declared once with their help text and type; samples are keyed by their label set.
///
/// Thread-safe behind a `Mutex`: the scan loop writes, the server's own thread reads, and each call holds the
/// lock for one dictionary update or one rendering (never across I/O), so a scrape never holds the scan back.
public final class MetricsRegistry: Sendable {
  /// Prometheus' metric types that this registry produces.
  public enum Kind: String, Sendable {
    case counter, gauge
  }

  /// One metric family: its samples by label set (labels sorted by name).
  struct Family: Sendable {
    var help: String
    var kind: Kind
    var samples: [[Label]: Double] = [:]
  }

  struct Label: Hashable, Sendable, Comparable {
    var name: String
    var value: String
    static func < (a: Label, b: Label) -> Bool { (a.name, a.value) < (b.name, b.value) }
  }

  private let families = Mutex<[String: Family]>([:])

  public init() {}

  /// Declares a family (again: its help and type are replaced, its samples kept). A family with no label
  /// set gets a sample of 0 at once, so a counter that never moved is still scraped as 0.
  public func declare(_ name: String, _ kind: Kind, help: String, unlabelled: Bool = true) {
    precondition(PrometheusText.isValidName(name), "metric name \(name)")
    families.withLock { all in
      var family = all[name] ?? Family(help: help, kind: kind)
      family.help = help
      family.kind = kind
      if unlabelled && family.samples.isEmpty { family.samples[[]] = 0 }
      all[name] = family
    }
  }

  /// Adds `delta` (≥ 0) to a counter's sample with these labels.
  public func add(_ name: String, _ delta: Double = 1, labels: [String: String] = [:]) {
    precondition(delta >= 0, "a counter only goes up")
    let key = Self.key(labels)
    families.withLock { all in all[name]?.samples[key, default: 0] += delta }
  }

  /// Sets a gauge's sample with these labels.
  public func set(_ name: String, _ value: Double, labels: [String: String] = [:]) {
    let key = Self.key(labels)
    families.withLock { all in all[name]?.samples[key] = value }
  }

  /// Replaces every sample of a gauge family (a label value that is gone, e.g. a tag nobody carries now,
  /// disappears from the exposition instead of keeping its last value).
  public func replace(_ name: String, _ samples: [(labels: [String: String], value: Double)]) {
    let keyed = samples.map { (Self.key($0.labels), $0.value) }
    families.withLock { all in
      all[name]?.samples = Dictionary(keyed, uniquingKeysWith: { _, last in last })
    }
  }

  /// One sample's value (nil when the family or the label set has none): for tests and health checks.
  public func value(_ name: String, labels: [String: String] = [:]) -> Double? {
    let key = Self.key(labels)
    return families.withLock { $0[name]?.samples[key] }
  }

  /// The whole registry as Prometheus text, families and samples in a stable order.
  public func exposition() -> String {
    let copy = families.withLock { $0 }
    var text = ""
    for (name, family) in copy.sorted(by: { $0.key < $1.key }) {
      text += PrometheusText.family(
        name: name, help: family.help, kind: family.kind.rawValue,
        samples: family.samples.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map {
          (labels: $0.key.map { ($0.name, $0.value) }, value: $0.value)
        })
    }
    return text
  }

  static func key(_ labels: [String: String]) -> [Label] {
    labels.map { Label(name: $0.key, value: $0.value) }.sorted()
  }
}
