import BeaconCore
import Foundation

/// The presence engine's pending exits and silences as a `MinHeap` of (deadline, subject), so a tick
/// looks only at subjects whose deadline has come instead of sorting and scanning every device (CPU was
/// quadratic when a tick ran for every sighting). Push and pop are O(log n).
///
/// [I] An entry is not updated when its subject is heard again: the engine re-checks a popped subject
/// against its current state and pushes it again with its new deadline when it is not due yet, so each
/// subject has at most one entry here and a device heard throughout costs one pop per timeout.
struct DeadlineHeap: Sendable {
  /// Ordered by deadline alone.
  private struct Entry: Comparable, Sendable {
    var deadline: Date
    var subject: String

    static func < (a: Entry, b: Entry) -> Bool { a.deadline < b.deadline }
    static func == (a: Entry, b: Entry) -> Bool { a.deadline == b.deadline }
  }

  private var heap = MinHeap<Entry>()

  var isEmpty: Bool { heap.isEmpty }
  var count: Int { heap.count }

  mutating func push(_ deadline: Date, _ subject: String) {
    heap.push(Entry(deadline: deadline, subject: subject))
  }

  /// Removes and returns every subject whose deadline is at or before `now`.
  mutating func popDue(_ now: Date) -> [String] {
    var due: [String] = []
    while let first = heap.min, first.deadline <= now {
      due.append(first.subject)
      heap.popMin()
    }
    return due
  }
}
