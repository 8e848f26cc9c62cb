extension ImageOrientation {
  /// The orientation that shows stored pixels as this one does and then turns the upright
  /// picture 90 degrees counter-clockwise, as the rotating fit and fill modes do.
  var turnedLeft: ImageOrientation {
    // Upright pixel (ux, uy) reads stored index base + ux * stepX + uy * stepY, and the turned
    // pixel (fx, fy) reads upright pixel (uprightWidth - 1 - fy, fx). On a 2 x 3 probe every
    // orientation has its own walk, so the composed walk names exactly one of them.
    let walk = OrientationWalk(self, width: 2, height: 3)
    let base = walk.base + (walk.displayWidth - 1) * walk.stepX
    return ImageOrientation.allCases.first { candidate in
      let other = OrientationWalk(candidate, width: 2, height: 3)
      return other.base == base && other.stepX == walk.stepY && other.stepY == -walk.stepX
    } ?? self
  }
}
