import BeaconCore

/// Received signal strength of one simulated device: a random walk of ±2 dB steps with a pull back
/// towards the mean, clamped to `mean ± spread`. Deterministic for a given profile and seed.
public struct RSSIRandomWalk: Sendable {
  public let mean: Int
  public let spread: Int
  private var current: Int
  private var generator: SeededGenerator

  public init(profile: RSSIProfile, defaultSeed: UInt64) {
    mean = profile.mean
    spread = profile.spread
    current = profile.mean
    generator = SeededGenerator(seed: profile.seed ?? defaultSeed)
  }

  /// The next reading in dBm.
  public mutating func next() -> Int8 {
    guard spread > 0 else { return Int8(clamping: mean) }
    let step = Int.random(in: -2...2, using: &generator)
    let pull = current > mean ? -1 : (current < mean ? 1 : 0)
    let biased = Int.random(in: 0..<4, using: &generator) == 0 ? pull : 0
    current = min(mean + spread, max(mean - spread, current + step + biased))
    return Int8(clamping: current)
  }
}
