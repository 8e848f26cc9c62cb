import ImagePipeline
import TestSupport
import Testing

@Suite struct ImageTensorNPYTests {
  @Test func roundTripsThroughTheReader() throws {
    let values: [Float] = (0..<24).map { Float($0) * -0.375 + 1e-3 }
    let tensor = try ImageTensor(shape: [1, 3, 2, 4], values: values)
    let bytes = tensor.npyBytes()
    #expect((bytes.count - values.count * 4) % 64 == 0)
    let headerEnd = 10 + Int(bytes[8]) + Int(bytes[9]) << 8
    #expect(bytes[headerEnd - 1] == 0x0A)
    let array = try NPYTestReader.parse(bytes)
    #expect(array.shape == [1, 3, 2, 4])
    #expect(array.values == values)
  }

  @Test func modelInputRoundTrips() throws {
    let image = try SyntheticImage.make(width: 30, height: 20, format: .rgba)
    let input = try ModelInputSpec.efficientNetLite(size: 16).tensor(from: image)
    let array = try NPYTestReader.parse(input.tensor.npyBytes())
    #expect(array.shape == input.tensor.shape)
    #expect(array.values == input.tensor.values)
  }
}
