import Foundation

/// A binary min-heap of (deadline, subject): the presence engine's pending exits and silences, so a tick
/// looks only at subjects whose deadline has come instead of sorting and scanning every device (CPU
/// was quadratic when a tick ran for every sighting). Push and pop are O(log n).
///
/// [I] An entry is not updated when its subject is heard again: the engine re-checks a popped subject
/// against its current state and pushes it again with its new deadline when it is not due yet, so each
/// subject has at most one entry here and a device heard throughout costs one pop per timeout.
struct DeadlineHeap: Sendable {
  private var items: [(deadline: Date, subject: String)] = []

  var isEmpty: Bool { items.isEmpty }
  var count: Int { items.count }

  mutating func push(_ deadline: Date, _ subject: String) {
    items.append((deadline, subject))
    var child = items.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard items[child].deadline < items[parent].deadline else { break }
      items.swapAt(child, parent)
      child = parent
    }
  }

  /// Removes and returns every subject whose deadline is at or before `now`.
  mutating func popDue(_ now: Date) -> [String] {
    var due: [String] = []
    while let first = items.first, first.deadline <= now {
      due.append(first.subject)
      let last = items.removeLast()
      guard !items.isEmpty else { break }
      items[0] = last
      siftDown()
    }
    return due
  }

  private mutating func siftDown() {
    var parent = 0
    while true {
      let left = 2 * parent + 1, right = left + 1
      var smallest = parent
      if left < items.count && items[left].deadline < items[smallest].deadline { smallest = left }
      if right < items.count && items[right].deadline < items[smallest].deadline { smallest = right }
      guard smallest != parent else { return }
      items.swapAt(parent, smallest)
      parent = smallest
    }
  }
}
