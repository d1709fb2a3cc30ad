import TextStream

/// The `textStream` section of a fleet-file device entry (kinds `tertiumReader` and `nordicUART`):
/// how the simulated text-stream device answers. Every key is optional:
///
/// ```json
/// "textStream": { "profile": "tertium-txrx", "answerDelayMs": 40, "fragmentGapMs": 30, "tags": 12,
///                 "busy": false, "txPower": 0 }
/// ```
/// - `profile`: which text-stream service a `tertiumReader` offers, by `TextStreamProfile` id (default
///   `tertium-txrx`; `nordic-uart` is the `nordicUART` kind's and only its).
/// - `answerDelayMs`: from the command's end of line to the first notification (default 30; 0…60000). Above
///   the client's first-packet timeout (2 s) it exercises the receive timeout.
/// - `fragmentGapMs`: between the notifications of one answer (default 20; 0…60000). Above the
///   inter-fragment timeout (200 ms) the client sees the answer cut in two.
/// - `tags`: tags a reader reports to `INVENTORY` (default 12; 0…200).
/// - `busy`: refuse every write with «Procedure Already in Progress» (fault injection). A device also
///   refuses writes while it is still sending an answer.
/// - `txPower`: a `nordicUART`'s starting `AT+TXPOWER` (default 0). Its starting name and interval are the
///   entry's `name` and `intervalMs`.
/// - `dropLinkMidAnswer`: the first N answers are cut: the device drops the link after sending half of the
///   answer's bytes (a device disconnecting mid-command; a setting the command made stays made) (fault
///   injection, 0…100; the fault matrix drives it).
/// - `greeting`: a line the device notifies as soon as a client subscribes (e.g. `+EVENT:CONNECTED`).
/// - `lateFragment`, `lateFragmentMs`: a line the device sends after each answer, `lateFragmentMs` (default
///   500; 0…60000) after its last notification: later than the client's inter-fragment timeout.
public struct TextStreamSection: Sendable, Hashable, Codable {
  public var profile: String?
  public var answerDelayMs: Int?
  public var fragmentGapMs: Int?
  public var tags: Int?
  public var busy: Bool?
  public var txPower: Int?
  public var dropLinkMidAnswer: Int?
  public var greeting: String?
  public var lateFragment: String?
  public var lateFragmentMs: Int?

  public init(
    profile: String? = nil, answerDelayMs: Int? = nil, fragmentGapMs: Int? = nil, tags: Int? = nil,
    busy: Bool? = nil, txPower: Int? = nil, dropLinkMidAnswer: Int? = nil, greeting: String? = nil,
    lateFragment: String? = nil, lateFragmentMs: Int? = nil
  ) {
    self.greeting = greeting
    self.lateFragment = lateFragment
    self.lateFragmentMs = lateFragmentMs
    self.profile = profile
    self.answerDelayMs = answerDelayMs
    self.fragmentGapMs = fragmentGapMs
    self.tags = tags
    self.busy = busy
    self.txPower = txPower
    self.dropLinkMidAnswer = dropLinkMidAnswer
  }

  enum CodingKeys: String, CodingKey, CaseIterable {
    case profile, answerDelayMs, fragmentGapMs, tags, busy, txPower, dropLinkMidAnswer, greeting, lateFragment,
      lateFragmentMs
  }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    profile = try c.decodeIfPresent(String.self, forKey: .profile)
    answerDelayMs = try c.decodeIfPresent(Int.self, forKey: .answerDelayMs)
    fragmentGapMs = try c.decodeIfPresent(Int.self, forKey: .fragmentGapMs)
    tags = try c.decodeIfPresent(Int.self, forKey: .tags)
    busy = try c.decodeIfPresent(Bool.self, forKey: .busy)
    txPower = try c.decodeIfPresent(Int.self, forKey: .txPower)
    dropLinkMidAnswer = try c.decodeIfPresent(Int.self, forKey: .dropLinkMidAnswer)
    greeting = try c.decodeIfPresent(String.self, forKey: .greeting)
    lateFragment = try c.decodeIfPresent(String.self, forKey: .lateFragment)
    lateFragmentMs = try c.decodeIfPresent(Int.self, forKey: .lateFragmentMs)
    for (key, value, range) in [
      (CodingKeys.answerDelayMs, answerDelayMs, 0...60000), (.fragmentGapMs, fragmentGapMs, 0...60000),
      (.lateFragmentMs, lateFragmentMs, 0...60000),
      (.tags, tags, 0...200), (.dropLinkMidAnswer, dropLinkMidAnswer, 0...100),
    ] {
      if let value, !range.contains(value) { throw invalidValue(decoder, key, "\(value) is outside \(range)") }
    }
    if let txPower, !SimulatedATCommands.txPowerSteps.contains(txPower) {
      throw invalidValue(
        decoder, CodingKeys.txPower, "\(txPower) dBm is not one of \(SimulatedATCommands.txPowerSteps)")
    }
    if let profile, TextStreamProfile.named(profile) == nil {
      let ids = TextStreamProfile.known.map(\.id).joined(separator: ", ")
      throw invalidValue(decoder, CodingKeys.profile, "'\(profile)' is not a text-stream profile (\(ids))")
    }
  }
}
