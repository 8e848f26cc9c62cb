import NeuralCore
import NeuralLayers
import Testing

/// Layer initializers that once trapped on a bad argument now throw
/// `NeuralCoreError.invalidArgument` naming the layer and the argument.
struct ArgumentErrorTests {
  /// The error `body` throws, or `nil` (recorded) when it returns or throws another type.
  func error(_ body: () throws -> Void) -> NeuralCoreError? {
    do {
      try body()
      Issue.record("expected an invalidArgument error")
      return nil
    } catch let error as NeuralCoreError {
      #expect(error.code == .invalidArgument, "\(error)")
      return error
    } catch {
      Issue.record("expected a NeuralCoreError, got \(error)")
      return nil
    }
  }

  @Test func convolutionRejectsNonPositiveCounts() {
    let zeroKernel = error {
      _ = try Conv2D(name: "c", inputChannels: 3, outputChannels: 4, kernelSize: 0)
    }
    #expect(zeroKernel?.message == "Conv2D 'c': kernelSize must be positive, got 0")
    let negativeChannels = error {
      _ = try Conv2D(name: "c", inputChannels: -3, outputChannels: 4, kernelSize: 1)
    }
    #expect(negativeChannels?.message == "Conv2D 'c': inputChannels must be positive, got -3")
    let zeroStride = error {
      _ = try Conv2D(name: "c", inputChannels: 3, outputChannels: 4, kernelSize: 3, stride: 0)
    }
    #expect(zeroStride?.message == "Conv2D 'c': stride must be positive, got 0")
    let zeroDilation = error {
      _ = try Conv2D(name: "c", inputChannels: 3, outputChannels: 4, kernelSize: 3, dilation: 0)
    }
    #expect(zeroDilation?.message == "Conv2D 'c': dilation must be positive, got 0")
    let zeroGroups = error {
      _ = try Conv2D(name: "c", inputChannels: 3, outputChannels: 4, kernelSize: 1, groups: 0)
    }
    #expect(zeroGroups?.message == "Conv2D 'c': groups must be positive, got 0")
  }

  @Test func convolutionRejectsChannelsThatDoNotDivideByGroups() {
    let failure = error {
      _ = try Conv2D(name: "dw", inputChannels: 6, outputChannels: 8, kernelSize: 3, groups: 4)
    }
    #expect(
      failure?.message
        == "Conv2D 'dw': inputChannels 6 and outputChannels 8 must both divide by groups 4")
  }

  @Test func convolutionRejectsNegativeOrHugePadding() {
    let negative = error {
      _ = try Conv2D(
        name: "c", inputChannels: 1, outputChannels: 1, kernelSize: 3,
        padding: .explicit(top: 1, left: -1, bottom: 1, right: 1))
    }
    #expect(negative?.message.hasPrefix("Conv2D 'c': padding amounts must be between 0") == true)
    _ = error {
      _ = try Conv2D(
        name: "c", inputChannels: 1, outputChannels: 1, kernelSize: 3, padding: .symmetric(.max))
    }
  }

  @Test func convolutionRejectsAnUncountableWeight() {
    let failure = error {
      _ = try Conv2D(
        name: "c", inputChannels: 1 << 31, outputChannels: 1 << 31, kernelSize: 1 << 30)
    }
    #expect(failure?.message.hasSuffix("has too many elements") == true)
    let hugeKernel = error {
      _ = try Conv2D(name: "c", inputChannels: 1, outputChannels: 1, kernelSize: .max)
    }
    #expect(hugeKernel?.message.hasPrefix("Conv2D 'c': kernelSize must be at most") == true)
  }

  @Test func poolingRejectsBadWindows() {
    let zeroKernel = error { _ = try Pool2D(.maximum, kernelSize: 0) }
    #expect(zeroKernel?.message == "Pool2D: kernelSize must be positive, got 0")
    let negativeStride = error {
      _ = try Pool2D(.average(countsPadding: true), kernelSize: 2, stride: -1)
    }
    #expect(negativeStride?.message == "Pool2D: stride must be positive, got -1")
    _ = error { _ = try Pool2D(.maximum, kernelSize: 2, padding: .symmetric(-2)) }
  }

  @Test func denseAndBatchNormRejectNonPositiveCounts() {
    let dense = error { _ = try Dense(name: "fc", inputFeatures: 16, outputFeatures: -5) }
    #expect(dense?.message == "Dense 'fc': outputFeatures must be positive, got -5")
    let huge = error { _ = try Dense(name: "fc", inputFeatures: .max, outputFeatures: 2) }
    #expect(huge?.message.hasSuffix("has too many elements") == true)
    let batchNorm = error { _ = try BatchNorm(name: "bn", channels: 0) }
    #expect(batchNorm?.message == "BatchNorm 'bn': channels must be positive, got 0")
  }

  @Test func validArgumentsStillBuildLayers() throws {
    let convolution = try Conv2D(
      name: "dw", inputChannels: 8, outputChannels: 8, kernelSize: 3, stride: 2, dilation: 2,
      padding: .symmetric(1), groups: 8)
    #expect(convolution.weightShape == [8, 1, 3, 3])
    let pooling = try Pool2D(.maximum, kernelSize: 3)
    #expect(pooling.stride == 3)
    let output = try Dense(name: "fc", inputFeatures: 4, outputFeatures: 2)(
      Tensor(repeating: 1, shape: [1, 4]))
    #expect(output.shape == [1, 2])
  }

  @Test func invalidArgumentPrintsItsName() {
    let failure = NeuralCoreError(.invalidArgument, "Conv2D 'c': groups must be positive, got 0")
    #expect("\(failure)" == "invalidArgument: Conv2D 'c': groups must be positive, got 0")
  }

  @Test func codeDescriptionsAreTheirNames() {
    let codes: [(NeuralCoreError.Code, String)] = [
      (.invalidGraph, "invalidGraph"), (.unsupported, "unsupported"),
      (.limitExceeded, "limitExceeded"), (.shapeMismatch, "shapeMismatch"),
      (.missingValue, "missingValue"), (.invalidArgument, "invalidArgument"),
    ]
    for (code, name) in codes {
      #expect("\(code)" == name)
      #expect(String(describing: code) == name)
    }
    #expect(Set(codes.map(\.0)).count == codes.count)
    let cycle = NeuralCoreError(.invalidGraph, "the graph has a cycle")
    #expect("\(cycle)" == "invalidGraph: the graph has a cycle")
  }
}
