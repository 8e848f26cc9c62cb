import NeuralCore
import Testing

@Test func tensorRejectsMismatchedElementCount() {
  #expect(throws: NeuralCoreError.self) { try Tensor(shape: [2, 3], scalars: [1, 2, 3]) }
  #expect(throws: NeuralCoreError.self) { try Tensor(repeating: 0, shape: [2, -1]) }
}

@Test func tensorCountsElements() throws {
  let tensor = try Tensor(repeating: 1, shape: [1, 3, 4, 5])
  #expect(tensor.count == 60)
  #expect(tensor.rank == 4)
}
