import Testing

@testable import BeaconCore

/// `MinHeap`: elements come out smallest first whatever order they went in, with duplicates, interleaved
/// pushes and pops, and empty.
@Suite(.timeLimit(.minutes(1))) struct MinHeapTests {
  @Test func popsInAscendingOrderWhateverThePushOrder() {
    var generator = SeededGenerator(seed: 7)
    for count in [0, 1, 2, 3, 10, 257] {
      let values = (0..<count).map { _ in Int.random(in: 0..<50, using: &generator) }
      var heap = MinHeap<Int>()
      for value in values { heap.push(value) }
      #expect(heap.count == count)
      var popped: [Int] = []
      while let value = heap.popMin() { popped.append(value) }
      #expect(popped == values.sorted())
      #expect(heap.isEmpty && heap.min == nil)
    }
  }

  @Test func interleavedPushesAndPopsAlwaysYieldTheCurrentMinimum() {
    var generator = SeededGenerator(seed: 11)
    var heap = MinHeap<Int>()
    var model: [Int] = []
    for _ in 0..<2_000 {
      if model.isEmpty || Bool.random(using: &generator) {
        let value = Int.random(in: -100...100, using: &generator)
        heap.push(value)
        model.append(value)
      } else {
        let smallest = model.min()!
        #expect(heap.min == smallest)
        #expect(heap.popMin() == smallest)
        model.remove(at: model.firstIndex(of: smallest)!)
      }
      #expect(heap.count == model.count)
    }
  }
}
