extension PreparationPlan {
  /// The stored rows and columns of a reduced decode that the resampler reads, with their
  /// weights, and the orientation it walks them in.
  struct ReducedSpans: Sendable, Hashable {
    let across: ReducedSpan
    let down: ReducedSpan
    let turn: ImageOrientation

    /// Maps the crop of a placement onto the reduced pixels of its decode.
    init(_ placement: PreprocessingProvenance) {
      let (storedWidth, storedHeight) = (placement.sourceWidth, placement.sourceHeight)
      let scale = placement.jpegScale
      let reduced = scale.scaledSize(width: storedWidth, height: storedHeight)
      // The crop in full-size stored pixels, divided by the reduction: reduced pixel i covers
      // full-size pixels i * d ..< (i + 1) * d.
      let stored = OrientationWalk(placement.orientation, width: storedWidth, height: storedHeight)
        .storedRect(of: placement.cropRect)
      let layout = placement.layout
      let turn = layout.isRotated ? placement.orientation.turnedLeft : placement.orientation
      let target = layout.contentRect
      let denominator = Double(scale.denominator)
      func span(_ start: Int, _ count: Int, _ extent: Int, _ outputs: Int) -> ReducedSpan {
        let first = Double(start) / denominator
        let end = min(Double(start + count) / denominator, Double(extent))
        let range = Int(first)..<min(Int(end.rounded(.up)), extent)
        let weights = ResamplingWeights(
          inputCount: range.count, from: first - Double(range.lowerBound),
          to: end - Double(range.lowerBound), outputCount: outputs)
        return ReducedSpan(range: range, weights: weights)
      }
      across = span(
        stored.x, stored.width, reduced.width,
        turn.swapsDimensions ? target.height : target.width)
      down = span(
        stored.y, stored.height, reduced.height,
        turn.swapsDimensions ? target.width : target.height)
      self.turn = turn
    }
  }

  /// Stored pixels of a reduced decode along one axis and the weights that resample them.
  struct ReducedSpan: Sendable, Hashable {
    let range: Range<Int>
    let weights: ResamplingWeights
  }
}
