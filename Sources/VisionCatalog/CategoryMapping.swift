public import ClassifierKit

/// Maps a classifier's labels to catalog category names.
///
/// Use ``identity`` when the model was trained on the catalog's own categories, so its labels
/// are the category names; use a table, such as ``imageNetToBundledCatalog``, when the model
/// speaks another vocabulary. A label missing from a table maps to no category.
public struct CategoryMapping: Sendable, Hashable {
  /// The category of each label, or `nil` for ``identity``.
  public let table: [String: String]?

  /// A mapping in which every label is its own category.
  public static let identity = CategoryMapping(table: nil)

  /// Creates a mapping from a table of label to category name.
  ///
  /// - Parameter table: The category for each label; labels not in it map to nothing.
  public init(_ table: [String: String]) {
    self.table = table
  }

  private init(table: [String: String]?) {
    self.table = table
  }

  /// The category for a classification's label, or `nil` when the label maps to nothing.
  ///
  /// - Parameter classification: A classification from the model.
  /// - Returns: The catalog category name.
  public func category(for classification: Classification) -> String? {
    guard let table else { return classification.label }
    return table[classification.label]
  }

  /// The mapping from ImageNet-1k labels (the default model's) to the bundled catalog's categories.
  ///
  /// 29 ImageNet classes map to 14 of the 15 categories (ImageNet has no headphones class, so
  /// "Headsets" has none). The table's source is `Resources/imagenet-categories.json`.
  public static let imageNetToBundledCatalog = CategoryMapping(ImageNetCategoryTable.table)
}

extension CategoryMapping {
  /// The mapping a model with these labels needs for the bundled catalog: the ImageNet table
  /// when the labels include every ImageNet label the table knows (the default model, or any
  /// ImageNet-1k model), otherwise ``identity`` (a model trained on the catalog's categories).
  ///
  /// - Parameter labels: The model's labels.
  /// - Returns: The mapping.
  public static func suggested(forLabels labels: [String]) -> CategoryMapping {
    let imageNet = imageNetToBundledCatalog
    let known = Set(labels)
    guard let table = imageNet.table, table.keys.allSatisfy(known.contains) else {
      return .identity
    }
    return imageNet
  }
}
