@_exported public import ImagePipeline
@_exported public import NeuralCore
