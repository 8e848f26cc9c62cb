@_exported public import ImagePipeline
