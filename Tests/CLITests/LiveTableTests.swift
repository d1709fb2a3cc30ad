import BeaconCore
import Testing

@testable import BeaconProvisionCLI

/// The terminal table of `scan`: redrawn in place, throttled, rows cut to the terminal width.
@Suite(.timeLimit(.minutes(5))) struct LiveTableTests {
  static func record(_ address: String, name: String?) -> DeviceRecord {
    // 02 01 06 | 1A FF 4C 00 02 15 <UUID> 0007 0001 C5: iBeacon 7/1 at −59 dBm.
    let data = Hex.decode("0201061AFF4C000215E2C56DB5DFFB48D2B060D0F5A71096E000070001C5")!
    let report = AdvertisingReport(
      address: BluetoothAddress(address)!, addressType: .public, kind: .connectable, rssi: -61, data: data)
    var record = DeviceRecord(report: report, decoded: DecodedAdvertisement(data), at: 0.5)
    record.name = name
    return record
  }

  @Test func redrawsInPlaceAndThrottles() {
    var table = LiveTable()
    let devices = [
      Self.record("AC:23:3F:00:00:01", name: "Store-Entrance"), Self.record("AC:23:3F:00:00:02", name: nil),
    ]
    #expect(table.isDue(at: 0.1))
    let first = table.redraw(devices, at: 0.1)
    #expect(!first.contains("\u{1B}["))  // nothing to erase yet
    let lines = first.split(separator: "\n")
    #expect(lines.count == 4)  // header, two rows, footer
    #expect(lines[0].hasPrefix("ADDRESS"))
    #expect(lines[1].contains("AC:23:3F:00:00:01") && lines[1].contains("Store-Entrance") && lines[1].contains("IND"))
    #expect(
      lines[1].contains("-61 (-61..-61)")
        && lines[1].contains("iBeacon E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:7/1 @-59dBm"))
    #expect(lines[3] == "scanning… 0.1 s, 2 devices")
    #expect(!table.isDue(at: 0.2))
    #expect(table.isDue(at: 0.4))
    // The second draw moves the cursor up over the 4 lines drawn and clears to the end of the screen.
    #expect(table.redraw(devices, at: 0.4).hasPrefix("\u{1B}[4A\u{1B}[J"))
    #expect(table.final(devices).hasSuffix("2 devices"))
  }

  /// A name longer than its column is cut with `…`, so every row's columns start where the header's do.
  @Test func aLongNameKeepsTheColumnsInLine() throws {
    var table = LiveTable()
    let text = table.final([
      Self.record("AC:23:3F:00:00:01", name: "Warehouse-North-Dock-Door-12"),
      Self.record("AC:23:3F:00:00:02", name: "Dock"),
    ])
    let lines = text.split(separator: "\n").map(String.init)
    let column = try #require(lines[0].range(of: "PDUS")).lowerBound.utf16Offset(in: lines[0])
    for row in lines[1...2] {
      let start = row.index(row.startIndex, offsetBy: column)
      #expect(row[start...].hasPrefix("IND"), "\(row)")
    }
    #expect(lines[1].contains("Warehouse-North…  IND"), "\(lines[1])")
  }

  @Test func rowsAreCutToTheTerminalWidth() {
    var table = LiveTable(width: 40)
    let text = table.final([Self.record("AC:23:3F:00:00:01", name: "Store-Entrance")])
    #expect(text.split(separator: "\n").allSatisfy { $0.count < 40 })
  }
}
