import NordicDFU
import Simulator

/// DFU engine throughput against a link model, as a fraction of the model's maximum (goal ≥ 90 %, printed,
/// never asserted). The engine talks to the simulated SDK 15.3 target in process; time is *virtual*,
/// advanced by a simple connection-event model using the GATT link model's parameters (`LinkModel`:
/// connection interval = `roundTripLatency`, `maxMTU`, `writesWithoutResponsePerEvent`):
/// - a control-point request and its notification cost one connection interval;
/// - writes without response fill connection events, `writesWithoutResponsePerEvent` per event;
/// - a PRN receipt is sent by the target in the event after the one carrying the N-th packet.
///
/// "The model's maximum" [I] is the most any Secure DFU client can get through this model (`bound`): every
/// 4 KiB data object's packets at full events, the PRN receipts the protocol makes a client wait for, and the
/// three control-point round trips it requires per object (Create, Calculate Checksum, Execute; docs/protocols/nordic-dfu.md
/// §2.4) — nothing else. So the fraction measures what our engine loses (the init packet, Select, Set PRN, the
/// wait after the first Create, any badly filled event) against an ideal client on the same link. The raw link maximum, (MTU − 3) × packets per event per interval, is
/// printed too: no Secure DFU client reaches 90 % of it with 4 KiB objects (the per-object round trips
/// alone cost 3 intervals against 1–3 intervals of data). Change `maximum` below to judge against it.
/// The wall-clock CPU cost of the run (engine and simulated target together, in whatever build mode ran it)
/// is printed too.
enum DFUThroughputBenchmark {
  static func run() async throws {
    let firmware = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
    let command = InitCommand(
      firmwareVersion: 2, hardwareVersion: 52, softDeviceRequirements: [0x101], type: .application, softDeviceSize: 0,
      bootloaderSize: 0, applicationSize: UInt32(firmware.count),
      hash: ImageHash(type: 3, digest: SHA256Digest.initPacketHash(of: firmware)), isDebug: false)
    let image = DFUTransferImage(name: "application", initPacket: InitPacket.serialize(command), firmware: firmware)
    print("image \(firmware.count) B, MTU 247 (244 B per write), 15 ms interval; virtual time (see doc comment)")
    print("'model max' = the most a Secure DFU client can do on this link model: 4 KiB objects at full events, the")
    print("PRN receipts it must wait for, and the Create, Checksum and Execute round trips of each object;")
    print("'raw link' = (MTU - 3) x packets per event per interval, which no Secure DFU client approaches")
    print(
      "packets/event  PRN  throughput      model max      fraction  goal ≥ 90 %  raw link       of raw  CPU (engine + simulated target)"
    )
    for perEvent in [6, 12, 24] {
      for prn: UInt16 in [0, 12] {
        let model = LinkModel(roundTripLatency: .milliseconds(15), maxMTU: 247, writesWithoutResponsePerEvent: perEvent)
        let clock = ContinuousClock()
        let start = clock.now
        let seconds = try simulate(image, model: model, prn: prn)
        let cpu = clock.now - start
        let bytesPerSecond = Double(firmware.count) / seconds
        let raw = Double((model.maxMTU - 3) * model.writesWithoutResponsePerEvent) / model.roundTripLatency.seconds
        let maximum = bound(firmware.count, model, prn: prn)
        let fraction = bytesPerSecond / maximum
        print(
          pad("\(perEvent)", 13), pad("\(prn)", 4), pad("\(Int(bytesPerSecond / 1000)) kB/s", 15),
          pad("\(Int(maximum / 1000)) kB/s", 14),
          pad(percent(fraction), 9), pad(fraction >= 0.9 ? "met" : "NOT met", 12), pad("\(Int(raw / 1000)) kB/s", 14),
          pad(percent(bytesPerSecond / raw), 7), "\(cpu)")
      }
    }
  }

  /// Runs one transfer, returns virtual seconds.
  static func simulate(_ image: DFUTransferImage, model: LinkModel, prn: UInt16) throws -> Double {
    var target = SimulatedDFUTarget()
    var engine = DFUEngine(images: [image], configuration: DFUEngineConfiguration(receiptInterval: prn))
    let interval = model.roundTripLatency.seconds
    var time = 0.0
    var packetsInEvent = 0
    var pending: [[UInt8]] = []
    func closeEvent() {
      if packetsInEvent > 0 {
        time += interval
        packetsInEvent = 0
      }
    }
    var action = engine.start()
    while true {
      switch action {
      case .connect: action = engine.handle(.connected(packetSize: model.maxMTU - 3))
      case .send(let request):
        closeEvent()
        time += interval
        pending += target.handle(request: request.bytes).compactMap { if case .respond(let b) = $0 { b } else { nil } }
        action = engine.handle(.response(try ControlPointResponse(bytes: pending.removeFirst())))
      case .writePacket(let bytes):
        pending += target.write(bytes).compactMap { if case .respond(let b) = $0 { b } else { nil } }
        packetsInEvent += 1
        if packetsInEvent == model.writesWithoutResponsePerEvent {
          time += interval
          packetsInEvent = 0
        }
        action = engine.handle(.packetWritten)
      case .awaitReceipt:
        closeEvent()
        time += interval
        action = engine.handle(.response(try ControlPointResponse(bytes: pending.removeFirst())))
      case .delay(let d):
        time += d.seconds
        action = engine.handle(.delayElapsed)
      case .finished: return time
      case .failed(let failure): throw failure
      }
    }
  }

  /// Bytes per second of the best a Secure DFU client can do on this model (the model's maximum, see the type's
  /// doc comment): each 4 KiB data object's packets in full events — with PRN N, in runs of N packets each
  /// followed by the receipt the client must wait for (docs/protocols/nordic-dfu.md §2.4 step 13; the counter restarts at every
  /// Create) — plus the object's Create, Calculate Checksum and Execute round trips. Nothing else is counted:
  /// not the init packet, not Select or Set PRN, not the wait after the first Create.
  static func bound(_ size: Int, _ model: LinkModel, prn: UInt16) -> Double {
    let perEvent = model.writesWithoutResponsePerEvent
    func events(_ packets: Int) -> Int { (packets + perEvent - 1) / perEvent }
    var intervals = 0
    for object in stride(from: 0, to: size, by: 4096) {
      let packets = (min(4096, size - object) + 243) / 244
      if prn == 0 {
        intervals += events(packets)
      } else {
        let runs = packets / Int(prn)
        let rest = packets % Int(prn)
        intervals += runs * (events(Int(prn)) + 1) + events(rest)
      }
      intervals += 3
    }
    return Double(size) / (Double(intervals) * model.roundTripLatency.seconds)
  }

  static func percent(_ f: Double) -> String {
    let tenths = Int((f * 1000).rounded())
    return "\(tenths / 10).\(tenths % 10) %"
  }

  static func pad(_ s: String, _ width: Int) -> String { s + String(repeating: " ", count: max(0, width - s.count)) }
}

extension Duration {
  var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
