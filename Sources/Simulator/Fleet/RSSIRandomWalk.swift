/// SplitMix64 (Steele, Lea, Flood 2014): a tiny deterministic generator so a seed always gives the same
/// simulated fleet behaviour.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

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
