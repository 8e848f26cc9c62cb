/// What `vision-catalog classify --json` prints for one photo: the file when a run classifies
/// several, and the classifications in order.
struct ClassifyReport: Decodable {
  /// One classification.
  struct Item: Decodable {
    /// The class index, when the model's labels give one.
    var index: Int?
    var label: String
    var confidence: Float
  }

  /// The photo, given when a run classifies several.
  var file: String?
  var classifications: [Item]
}
