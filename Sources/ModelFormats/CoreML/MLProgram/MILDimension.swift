/// One dimension of a tensor type or a list's length.
package enum MILDimension: Sendable, Equatable {
  /// A size known in the file.
  case constant(Int)
  /// A size known only at run time; `variadic` when it also stands for any number of them.
  case unknown(variadic: Bool)
}
