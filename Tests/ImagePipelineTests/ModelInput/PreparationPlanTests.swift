import Foundation
import ImagePipeline
import Testing

/// One plan per photo: the decode and the render read the same ``PreparationPlan``, and it agrees
/// with the spec's shortcuts.
@Suite struct PreparationPlanTests {
  @Test func theDecodedPhotoCarriesThePlanItsInputIsRenderedWith() throws {
    let spec = ModelInputSpec.efficientNetLite(size: 56)
    let data = Data(JPEGScalingTests.jpeg)
    let info = try ImageDecoder().inspect(data)
    let plan = try PreparationPlan(spec: spec, info: info)
    let photo = try ImageSource.data(data).decoded(for: spec)
    #expect(photo.plan == plan)
    #expect(plan.jpegScale == (try spec.jpegScale(for: info)))
    #expect(photo.image.width == plan.decodedSize.width)
    #expect(photo.decodedRows < photo.image.height)
    let input = try photo.modelInput()
    #expect(input.provenance == plan.provenance)
    #expect(input == (try spec.tensor(fromEncoded: data)))
  }

  @Test func onlyAnAutomaticJPEGIsPlannedReduced() throws {
    let spec = ModelInputSpec.efficientNetLite(size: 56)
    let info = try ImageDecoder().inspect(JPEGScalingTests.jpeg)
    #expect(try PreparationPlan(spec: spec, info: info).jpegScale == .quarter)
    #expect(try PreparationPlan(spec: spec, info: info, jpegScaling: .exact).jpegScale == .full)
    let image = try ImageDecoder().decode(JPEGScalingTests.jpeg)
    let fromImage = try PreparationPlan(spec: spec, image: image)
    #expect(fromImage.jpegScale == .full)
    #expect(try fromImage.modelInput(rendering: image) == (try spec.tensor(from: image)))
    let picture = try fromImage.picture(rendering: image)
    #expect(picture == (try spec.picture(from: image)))
  }

  @Test func aRenderRefusesPixelsOfAnotherSize() throws {
    let spec = ModelInputSpec.efficientNetLite(size: 56)
    let info = try ImageDecoder().inspect(JPEGScalingTests.jpeg)
    let plan = try PreparationPlan(spec: spec, info: info)
    let full = try ImageDecoder().decode(JPEGScalingTests.jpeg)
    #expect(throws: ImageDecodingError.self) { try plan.modelInput(rendering: full) }
  }
}
