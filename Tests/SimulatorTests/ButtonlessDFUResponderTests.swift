import Testing

@testable import Simulator

/// docs/protocols/nordic-dfu.md §2.2: the buttonless characteristic's requests and `20 op status` indications.
@Suite(.timeLimit(.minutes(3))) struct ButtonlessDFUResponderTests {
  @Test func setNameThenEnter() {
    var r = ButtonlessDFUResponder()
    // 02 | len 03 | "Dfu" → 20 02 01
    #expect(
      r.receive([0x02, 0x03] + Array("Dfu".utf8)) == .init(indication: [0x20, 0x02, 0x01], enterBootloader: false))
    #expect(r.bootloaderName == "Dfu")
    // 02 with a length byte that disagrees with the name → 20 02 05 invalid adv name
    #expect(r.receive([0x02, 0x05, 0x41]).indication == [0x20, 0x02, 0x05])
    // 21 bytes is one too many
    #expect(r.receive([0x02, 21] + [UInt8](repeating: 0x41, count: 21)).indication == [0x20, 0x02, 0x05])
    // 01 → 20 01 01 and the jump
    #expect(r.receive([0x01]) == .init(indication: [0x20, 0x01, 0x01], enterBootloader: true))
    // unknown opcode 09 → 20 09 02
    #expect(r.receive([0x09]).indication == [0x20, 0x09, 0x02])
  }

  @Test func anSDK13ServiceRefusesTheName() {
    var r = ButtonlessDFUResponder(acceptsName: false)
    // 02 | len 03 | "Dfu" → 20 02 02 op code not supported; no name kept
    #expect(
      r.receive([0x02, 0x03] + Array("Dfu".utf8)) == .init(indication: [0x20, 0x02, 0x02], enterBootloader: false))
    #expect(r.bootloaderName == nil)
    // 01 still jumps
    #expect(r.receive([0x01]) == .init(indication: [0x20, 0x01, 0x01], enterBootloader: true))
  }
}
