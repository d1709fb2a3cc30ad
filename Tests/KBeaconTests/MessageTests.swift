import JSON
import Testing

@testable import KBeacon

/// JSON messages of docs/protocols/kbeacon.md §6 (v2), §7 (v1) and §6.7 (commands).
@Suite(.timeLimit(.minutes(1))) struct MessageTests {
  @Test func getParaV2AndV1Text() {
    #expect(ReadRequest.pro([.common, .slots]).json.description == #"{"msg":"getPara","type":3}"#)
    #expect(ReadRequest.pro(.triggers, triggerType: 4).json.description == #"{"msg":"getPara","type":4,"trType":4}"#)
    #expect(ReadRequest.pro(.slots, slot: 2).json.description == #"{"msg":"getPara","type":2,"slot":2}"#)
    #expect(ReadRequest.legacy(.initialRead).json.description == #"{"msg":"getPara","stype":55}"#)
    #expect(
      ReadRequest.legacy(.trigger, triggerType: 2).json.description == #"{"msg":"getPara","stype":64,"trType":2}"#)
  }

  @Test func fullReadPutsAtMostTwoTypeBitsInOneRequest() {
    #expect(ReadRequest.proFullRead() == [.pro([.common, .slots]), .pro(.triggers)])
    #expect(ReadRequest.proFullRead(.all) == [.pro([.common, .slots]), .pro([.triggers, .sensors])])
    // trCap 0x3 → v1 motion and button trigger reads
    #expect(ReadRequest.legacyFullRead(triggerCapability: 0x3).count == 3)
  }

  @Test func responseParsesIntoTheModelAndBackLosslessly() throws {
    let text =
      #"{"model":"KBPro","ver":"V5.22","maxSlot":5,"futureKey":{"a":[1,2]},"name":"door","advObj":[{"slot":0,"type":5,"advPrd":1022.5,"txPwr":0,"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","majorID":1,"minorID":2,"newSlotKey":7}],"trObj":[{"trIdx":0,"trType":4,"trAct":1,"slot":0}]}"#
    let config = try ReadResponse.parse(utf8(text), generation: .pro)
    #expect(config.generation == .pro)
    #expect(config.common[CommonKey.name] == "door")
    #expect(config.slot(0)?[SlotKey.advPrd] == 1022.5)
    #expect(config.slot(0)?.advType == .iBeacon)
    #expect(config.trigger(0)?.triggerType == .buttonSingleClick)
    #expect(config.trigger(0)?.actions == .advertise)
    // unknown keys survive, and the text comes back byte for byte
    #expect(JSONWriter.text(.object(config.deviceJSON)) == text)
  }

  @Test func modleMarksALegacyResponse() throws {
    let config = try ReadResponse.parse(
      utf8(#"{"modle":"KBN52","devName":"x","type":4,"uuid":"7777772E-6B6B-6D63-6E2E-636F6D000001"}"#), generation: .pro
    )
    #expect(config.generation == .legacy)
    #expect(config.common[LegacyKey.type] == 4)
    #expect(GenerationDetection.shouldFallBackToLegacy(after: .deviceRejected(.invalidParameter)))
    #expect(GenerationDetection.shouldFallBackToLegacy(after: .deviceRejected(.unknownMessage)))
    #expect(!GenerationDetection.shouldFallBackToLegacy(after: .deviceRejected(.busy)))
  }

  @Test func shortOrBrokenResponsesAreNamedErrors() {
    #expect(throws: KBeaconError.readNull) { try ReadResponse.parse(utf8("{}"), generation: .pro) }
    #expect(throws: KBeaconError.self) { try ReadResponse.parse(utf8(#"{"advObj":5,"x":1}"#), generation: .pro) }
  }

  @Test func cfgCarriesOnlyTheGivenKeysInSDKOrder() throws {
    var slot = SlotConfig(slot: 0, type: .iBeacon)
    slot[SlotKey.advPrd] = 1022.5
    slot[SlotKey.txPwr] = 0
    slot[SlotKey.conn] = true
    slot[SlotKey.uuid] = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    slot[SlotKey.majorID] = 1
    var changes = KBeaconConfiguration(slots: [slot])
    changes.common[CommonKey.name] = "lobby"
    let text = String(decoding: try WriteRequest.bytes(for: changes), as: UTF8.self)
    #expect(
      text
        == #"{"msg":"cfg","name":"lobby","advObj":[{"slot":0,"type":5,"advPrd":1022.5,"txPwr":0,"conn":1,"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","majorID":1}]}"#
    )
  }

  /// Hostile-input review: `"advPrd":760.0` went out where both SDKs send `760` (org.json and JSONSerialization write an
  /// integral float without a fraction); 152.5 keeps its fraction.
  @Test func anIntegralAdvertisingPeriodIsWrittenWithoutAFraction() throws {
    var slot = SlotConfig(slot: 0, type: .iBeacon)
    slot[SlotKey.advPrd] = 760.0
    var other = SlotConfig(slot: 1, type: .eddystoneUID)
    other[SlotKey.advPrd] = 152.5
    let bytes = try WriteRequest.bytes(for: KBeaconConfiguration(slots: [slot, other]))
    #expect(
      bytes
        == Array(#"{"msg":"cfg","advObj":[{"slot":0,"type":5,"advPrd":760},{"slot":1,"type":2,"advPrd":152.5}]}"#.utf8),
      "\(String(decoding: bytes, as: UTF8.self))")
  }

  @Test func cfgRefusesWhatTheSDKRefuses() {
    var tooLoud = SlotConfig(slot: 0, type: .iBeacon)
    tooLoud[SlotKey.txPwr] = 4
    var device = CommonConfig()
    device[CommonKey.minPwr] = -20
    device[CommonKey.maxPwr] = 0
    #expect(throws: KBeaconError.self) {
      try WriteRequest.json(for: KBeaconConfiguration(slots: [tooLoud]), device: device)
    }
    var badPeriod = SlotConfig(slot: 1, type: .eddystoneURL)
    badPeriod[SlotKey.advPrd] = 50
    #expect(throws: KBeaconError.self) { try WriteRequest.json(for: KBeaconConfiguration(slots: [badPeriod])) }
    var advertisingTrigger = TriggerConfig(index: 0, type: .buttonSingleClick)
    advertisingTrigger[TriggerKey.trAct] = .advertise
    #expect(throws: KBeaconError.self) {
      try WriteRequest.json(for: KBeaconConfiguration(triggers: [advertisingTrigger]))
    }
    var readOnly = KBeaconConfiguration()
    readOnly.common[CommonKey.maxSlot] = 3
    #expect(throws: KBeaconError.inputInvalid("maxSlot is read-only")) { try WriteRequest.json(for: readOnly) }
    #expect(throws: KBeaconError.noParameters) { try WriteRequest.json(for: KBeaconConfiguration()) }
    var longRange = SlotConfig(slot: 0, type: .iBeacon)
    longRange[SlotKey.mode] = .longRange
    #expect(throws: KBeaconError.notSupported("long-range advertising")) {
      try WriteRequest.json(for: KBeaconConfiguration(slots: [longRange]), device: device)
    }
  }

  @Test func legacyCfgIsFlatWithTheTouchedBlocks() throws {
    var changes = KBeaconConfiguration(generation: .legacy)
    changes.common[LegacyKey.devName] = "old"
    changes.common[LegacyKey.majorID] = 7
    // stype 0x24 = common (0x20) + iBeacon (0x4)
    #expect(try WriteRequest.json(for: changes).description == #"{"msg":"cfg","stype":36,"devName":"old","majorID":7}"#)
  }

  @Test func commands() {
    #expect(
      Command.ring(milliseconds: 3000, type: 3, ledOn: 200, ledOff: 800).json.description
        == #"{"msg":"ring","ringTime":3000,"ringType":3,"ledOn":200,"ledOff":800}"#)
    #expect(Command.factoryReset.json.description == #"{"msg":"admin","stype":"reset"}"#)
    #expect(Command.powerOff.json.description == #"{"msg":"admin","stype":"pwroff"}"#)
    #expect(Command.reset(for: .legacy).json.description == #"{"msg":"reset"}"#)
    #expect(Command(json: Command.powerOff.json) == .powerOff)
  }

  /// `ring` has the spec's shape (§6.7 `{"msg":"ring","ringTime":ms,"ringType":t,"ledOn":ms,"ledOff":ms}`)
  /// with KKM README §4.3.7.1's example values (20000 ms, beep, LED 200 on / 1800 off), on the wire as one
  /// SINGLE JSON request frame at an authenticated budget (§4.2): header 0x23 = data type 2 << 4 | 3
  /// SINGLE, seq 00 00, then the 70 bytes of JSON text.
  @Test func ringCarriesTheLEDTimingOfTheSpecExample() {
    let text = #"{"msg":"ring","ringTime":20000,"ringType":1,"ledOn":200,"ledOff":1800}"#
    #expect(Command.ring(milliseconds: 20000, type: 1).bytes == Array(text.utf8))
    let frames = RequestFrame.fragments(
      of: Command.ring(milliseconds: 20000, type: 1).bytes, dataType: .json, budget: 244)
    #expect(frames.map(\.bytes) == [[0x23, 0x00, 0x00] + Array(text.utf8)])
    #expect(
      Command(json: Command.ring(milliseconds: 20000, type: 1).json)
        == .ring(milliseconds: 20000, type: 1, ledOn: 200, ledOff: 1800))
  }

  @Test func triggersOfEveryKindCanBeWrittenAndDisabled() throws {
    for type in TriggerType.allCases where type != .disabled {
      var t = TriggerConfig(index: 1, type: type)
      t[TriggerKey.trAct] = [.reportToApp, .record]
      let text = try WriteRequest.json(for: KBeaconConfiguration(triggers: [t])).description
      #expect(text == #"{"msg":"cfg","trObj":[{"trIdx":1,"trType":\#(type.rawValue),"trAct":20}]}"#)
    }
    #expect(
      try WriteRequest.json(for: KBeaconConfiguration(triggers: [.disabled(2)])).description
        == #"{"msg":"cfg","trObj":[{"trIdx":2,"trType":0}]}"#)
    #expect(
      try WriteRequest.json(for: KBeaconConfiguration(slots: [.disabled(3)])).description
        == #"{"msg":"cfg","advObj":[{"slot":3,"type":0}]}"#)
    // trCap bit (trType − 1)
    #expect(TriggerConfig.isSupported(.buttonSingleClick, triggerCapability: 0x8))
    #expect(!TriggerConfig.isSupported(.accMotion, triggerCapability: 0x8))
  }
}
