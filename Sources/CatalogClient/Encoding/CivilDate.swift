import Foundation

/// Proleptic Gregorian calendar arithmetic in UTC, as ISO 8601 and OData define dates.
///
/// Foundation's Gregorian `Calendar` switches to the Julian calendar before 1582-10-15, which
/// would shift early `Edm.DateTime` values (0001-01-01 became 0001-01-03), so literals and
/// payload dates are converted here instead (Howard Hinnant's `days_from_civil` /
/// `civil_from_days`).
struct CivilDate: Hashable {
  var year: Int
  var month: Int
  var day: Int
  var hour: Int
  var minute: Int
  var second: Int
  var millisecond: Int

  /// The fields of a point in time, rounded to the nearest millisecond; times beyond about
  /// ±285,000 years (or not finite) are clamped there rather than trapping.
  init(_ date: Date) {
    let limit = Double(1 << 53)
    let scaled = (date.timeIntervalSince1970 * 1000).rounded()
    let total = Int(scaled.isNaN ? 0 : min(max(scaled, -limit), limit))
    let (days, dayMilliseconds) = Self.floorDivision(total, 86_400_000)
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    hour = dayMilliseconds / 3_600_000
    minute = dayMilliseconds / 60_000 % 60
    second = dayMilliseconds / 1000 % 60
    millisecond = dayMilliseconds % 1000
  }

  /// The point in time of calendar fields, or `nil` when a field is out of its range.
  static func date(
    year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
  ) -> Date? {
    guard (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour),
      (0...59).contains(minute), (0...60).contains(second)
    else {
      return nil
    }
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146_097 + dayOfEra - 719_468
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
    return Date(timeIntervalSince1970: Double(seconds))
  }

  private static func floorDivision(_ value: Int, _ divisor: Int) -> (Int, Int) {
    let remainder = value % divisor
    return remainder < 0
      ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
  }
}
