import Presence
import Profiles
import Testing

/// The monitor's per-device inventory columns are checked at start with the events file's ranges: a device
/// whose `exitTimeout` is 0 or negative entered and left every second, and `abc` was ignored without a word.
@Suite(.timeLimit(.minutes(1))) struct MonitorInventoryColumnsTests {
  static let csv = """
    address,exitTimeout,enterRSSI
    AC:23:3F:00:00:01,30,-80
    AC:23:3F:00:00:02,0,
    AC:23:3F:00:00:03,-5,-60
    AC:23:3F:00:00:04,abc,
    AC:23:3F:00:00:05,,-200
    AC:23:3F:00:00:06,86400,20
    AC:23:3F:00:00:07,nan,x
    """

  @Test func everyBadCellIsReportedWithItsRowAndColumn() throws {
    let inventory = try Inventory.parse(Array(Self.csv.utf8), file: "inv.csv")
    #expect {
      try MonitorInventoryColumns.validate(inventory, file: "inv.csv")
    } throws: { error in
      let lines = (error as? ProfileDiagnostics)?.all.map(\.description) ?? []
      return lines == [
        #"inv.csv:3:1: $[1].exitTimeout: AC:23:3F:00:00:02: "0" is not a valid exitTimeout (allowed: seconds, 1…86400)"#,
        #"inv.csv:4:1: $[2].exitTimeout: AC:23:3F:00:00:03: "-5" is not a valid exitTimeout (allowed: seconds, 1…86400)"#,
        #"inv.csv:5:1: $[3].exitTimeout: AC:23:3F:00:00:04: "abc" is not a valid exitTimeout (allowed: seconds, 1…86400)"#,
        #"inv.csv:6:1: $[4].enterRSSI: AC:23:3F:00:00:05: "-200" is not a valid enterRSSI (allowed: an integer in dBm, -127…20)"#,
        #"inv.csv:8:1: $[6].enterRSSI: AC:23:3F:00:00:07: "x" is not a valid enterRSSI (allowed: an integer in dBm, -127…20)"#,
        #"inv.csv:8:1: $[6].exitTimeout: AC:23:3F:00:00:07: "nan" is not a valid exitTimeout (allowed: seconds, 1…86400)"#,
      ]
        && (error as? ProfileDiagnostics)?.description.hasSuffix(
          "6 errors in the inventory; nothing was sent to any device") == true
    }
  }

  @Test func inRangeAndEmptyCellsPass() throws {
    let text = "address,exitTimeout,enterRSSI,room\nAC:23:3F:00:00:01,1,-127,a\nAC:23:3F:00:00:02,,,b\n"
    let inventory = try Inventory.parse(Array(text.utf8), file: "ok.csv")
    try MonitorInventoryColumns.validate(inventory, file: "ok.csv")
  }
}
