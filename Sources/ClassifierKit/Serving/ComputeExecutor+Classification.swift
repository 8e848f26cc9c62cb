import Foundation
import ImagePipeline

extension ComputeExecutor {
  /// Reads, decodes, prepares and classifies one photo on a worker; photos for a dynamically
  /// batched model join that model's batch once prepared.
  ///
  /// The file is read and its header parsed before the decode's memory is reserved, so the
  /// reservation is the decoded size the header announces, and a header over
  /// ``DecodingOptions/maximumPixelCount`` is refused without reserving anything.
  func classify<Model: ImageClassificationModel>(
    _ source: ImageSource, with model: Model, preparation: PreparationOptions,
    options: ClassificationOptions
  ) async throws(ClassificationError) -> ClassificationReport {
    let batched = model as? any DynamicallyBatched
    let key = batched.map { BatchKey(model: $0.batchingIdentity, options: options) }
    return try await perform(feeding: key) { id, finish in
      var preparation = preparation
      if let share = Self.threadShare {
        preparation.decoding.threadCount = min(preparation.decoding.threadCount, share)
      }
      let clock = ContinuousClock()
      let start = clock.now
      let loaded: ImageSource
      do {
        let decoder = ImageDecoder(options: preparation.decoding)
        loaded = try source.loaded(using: decoder)
        // A header over the pixel limit (a decompression bomb) is refused before its memory is
        // reserved: the reservation would otherwise wait for every photo in flight.
        if let info = loaded.info { try decoder.checkPixelLimit(info) }
      } catch {
        finish(
          .failure(
            ClassificationError(
              .invalidImage, "\(source.name) cannot be decoded", underlying: error)))
        return
      }
      let plan = Self.headerPlan(of: loaded, for: model.inputSpec, preparation: preparation)
      let cost = Self.decodingCost(of: loaded, plan: plan)
      self.reserve(cost)
      guard let batched, let key else {
        let outcome = Result { () throws(ClassificationError) in
          try model.classify(loaded, preparation: preparation, options: options)
        }
        self.release(cost)
        finish(outcome)
        return
      }
      let prepared = Result { () throws(ClassificationError) in
        try model.prepareInput(loaded, preparation: preparation, plan: plan)
      }
      self.release(cost)
      switch prepared {
      case .failure(let error):
        finish(.failure(error))
      case .success(let (input, format, decode, preprocess)):
        let decodeTime = decode - start
        let preprocessTime = preprocess - decode
        self.addToBatch(
          key, id: id, input: input, maximumSize: batched.maximumBatchSize,
          run: { inputs throws(ClassificationError) in
            try model.classify(prepared: inputs, options: options)
          },
          deliver: { result, inference in
            finish(
              result.map {
                ClassificationReport(
                  classifications: $0, preprocessing: input.provenance,
                  timings: ClassificationTimings(
                    decode: decodeTime, preprocess: preprocessTime, inference: inference),
                  modelName: model.name, format: format)
              })
          })
      }
    }
  }

  /// Prepares decoded images and classifies them in one call on a worker.
  func classify<Model: ImageClassificationModel>(
    images: [RasterImage], with model: Model, options: ClassificationOptions
  ) async throws(ClassificationError) -> [[Classification]] {
    try await perform { _, finish in
      finish(
        Result { () throws(ClassificationError) in
          var inputs: [ModelInput] = []
          inputs.reserveCapacity(images.count)
          for (position, image) in images.enumerated() {
            do {
              inputs.append(try model.inputSpec.tensor(from: image))
            } catch {
              throw ClassificationError(
                .invalidImage, "image \(position) cannot be prepared", underlying: error)
            }
          }
          return try model.classify(prepared: inputs, options: options)
        })
    }
  }

  /// The preparation plan of a loaded photo, made from its header once: it sizes the decode's
  /// memory here and then guides the decode; `nil` for a raster image or an unreadable header.
  static func headerPlan(
    of source: ImageSource, for spec: ModelInputSpec, preparation: PreparationOptions
  ) -> PreparationPlan? {
    guard let info = source.info else { return nil }
    return try? PreparationPlan(
      spec: spec, info: info, orientation: preparation.orientation,
      jpegScaling: preparation.jpegScaling)
  }

  /// The bytes decoding `source` takes at its peak, estimated from its header: the encoded
  /// bytes, the decoded pixels at the reduction its plan allows (four bytes each) and a second
  /// buffer of that size for the oriented or resampled copy.
  static func decodingCost(of source: ImageSource, plan: PreparationPlan?) -> Int {
    let encoded = source.encodedData?.count ?? 0
    guard let info = source.info else {
      return encoded + (source.image.map { $0.width * $0.height * 4 } ?? 0)
    }
    let size = (plan?.jpegScale ?? .full).scaledSize(width: info.width, height: info.height)
    let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
    guard !overflow else { return Int.max / 2 }
    return encoded + min(pixels, Int.max / 16) * 8
  }
}

extension ComputeExecutor {
  /// Runs `body` on a worker, queued and refused like a classification: over
  /// ``ComputeLimits/maximumQueuedCount`` it throws `overloaded` at once, and cancelling the
  /// caller before a worker takes it throws `cancelled`.
  ///
  /// For work beside classification that must not hold the caller's thread, such as reading
  /// barcodes for a server's request.
  package func run<Value: Sendable>(_ body: @escaping @Sendable () -> Value)
    async throws(ClassificationError) -> Value
  {
    try await perform { _, finish in finish(.success(body())) }
  }
}
