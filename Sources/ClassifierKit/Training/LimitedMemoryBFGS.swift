/// L-BFGS (Nocedal and Wright, algorithm 7.4) with a backtracking Armijo line search, in double
/// precision and a fixed order of operations, so a run is reproducible bit for bit.
struct LimitedMemoryBFGS {
  /// The correction pairs kept.
  static let memory = 10

  let problem: SoftmaxRegressionProblem
  let options: SoftmaxRegression.Options
  /// The current point: the weights row by row, then the biases.
  private(set) var parameters: [Double]

  init(problem: SoftmaxRegressionProblem, options: SoftmaxRegression.Options) {
    self.problem = problem
    self.options = options
    parameters = [Double](repeating: 0, count: problem.parameterCount)
  }

  /// Iterates until the gradient meets the tolerance, the iterations run out, or no step lowers
  /// the objective.
  mutating func run() -> SoftmaxRegression.Report {
    var (value, gradient) = problem.evaluate(parameters)
    var steps: [[Double]] = []
    var changes: [[Double]] = []
    var iteration = 0
    while iteration < options.maximumIterations {
      if Self.largestMagnitude(gradient) <= options.tolerance {
        return .init(iterations: iteration, converged: true, loss: value)
      }
      var direction = Self.direction(gradient: gradient, steps: steps, changes: changes)
      var slope = Self.dot(direction, gradient)
      if slope >= 0 {
        // Not a descent direction (curvature information gone stale): steepest descent.
        direction = gradient.map { -$0 }
        slope = Self.dot(direction, gradient)
        steps.removeAll()
        changes.removeAll()
      }
      // The first step is scaled to a unit move; later ones start at the quasi-Newton step.
      var length = steps.isEmpty ? 1 / max(Self.norm(gradient), 1e-12) : 1
      var accepted: (point: [Double], value: Double, gradient: [Double])?
      for _ in 0..<60 {
        let point = zip(parameters, direction).map { $0 + length * $1 }
        let trial = problem.evaluate(point)
        if trial.value <= value + 1e-4 * length * slope {
          accepted = (point, trial.value, trial.gradient)
          break
        }
        length *= 0.5
      }
      guard let accepted else {
        return .init(iterations: iteration, converged: false, loss: value)
      }
      let step = zip(accepted.point, parameters).map { $0 - $1 }
      let change = zip(accepted.gradient, gradient).map { $0 - $1 }
      if Self.dot(step, change) > 1e-12 {
        steps.append(step)
        changes.append(change)
        if steps.count > Self.memory {
          steps.removeFirst()
          changes.removeFirst()
        }
      }
      parameters = accepted.point
      value = accepted.value
      gradient = accepted.gradient
      iteration += 1
    }
    let converged = Self.largestMagnitude(gradient) <= options.tolerance
    return .init(iterations: iteration, converged: converged, loss: value)
  }

  /// The two-loop recursion: minus the inverse-Hessian estimate times the gradient.
  private static func direction(gradient: [Double], steps: [[Double]], changes: [[Double]])
    -> [Double]
  {
    var q = gradient
    var alphas = [Double](repeating: 0, count: steps.count)
    for index in steps.indices.reversed() {
      let rho = 1 / dot(changes[index], steps[index])
      alphas[index] = rho * dot(steps[index], q)
      for k in q.indices { q[k] -= alphas[index] * changes[index][k] }
    }
    if let step = steps.last, let change = changes.last {
      let scale = dot(step, change) / dot(change, change)
      for k in q.indices { q[k] *= scale }
    }
    for index in steps.indices {
      let rho = 1 / dot(changes[index], steps[index])
      let beta = rho * dot(changes[index], q)
      for k in q.indices { q[k] += (alphas[index] - beta) * steps[index][k] }
    }
    return q.map { -$0 }
  }

  static func dot(_ a: [Double], _ b: [Double]) -> Double {
    var sum = 0.0
    for index in a.indices { sum += a[index] * b[index] }
    return sum
  }

  static func norm(_ a: [Double]) -> Double { dot(a, a).squareRoot() }

  static func largestMagnitude(_ a: [Double]) -> Double { a.map(abs).max() ?? 0 }
}
