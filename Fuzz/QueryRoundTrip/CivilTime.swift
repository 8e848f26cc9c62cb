import Foundation

/// Proleptic Gregorian calendar arithmetic (ISO 8601, as OData specifies), independent of
/// Foundation's `Calendar`.
enum CivilTime {
  /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z in milliseconds since 1970.
  static let firstMillisecond: Int64 = -62_135_596_800_000
  static let lastMillisecond: Int64 = 253_402_300_799_999

  static func milliseconds(_ date: Date) -> Int64 {
    Int64((date.timeIntervalSince1970 * 1000).rounded())
  }

  /// Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil).
  static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// Reads `yyyy-MM-ddTHH:mm[:ss[.fff…]]` with an optional (or required) `Z`.
  static func parse(_ text: String, requiresZone: Bool) -> Date? {
    var body = Substring(text)
    if body.hasSuffix("Z") {
      body = body.dropLast()
    } else if requiresZone {
      return nil
    }
    let halves = body.split(separator: "T", omittingEmptySubsequences: false)
    guard halves.count == 2 else {
      return nil
    }
    let date = halves[0].split(separator: "-", omittingEmptySubsequences: false)
    let time = halves[1].split(separator: ":", omittingEmptySubsequences: false)
    guard date.count == 3, date[0].count == 4, date[1].count == 2, date[2].count == 2,
      (2...3).contains(time.count), time[0].count == 2, time[1].count == 2,
      let year = Int64(date[0]), let month = Int64(date[1]), let day = Int64(date[2]),
      let hour = Int64(time[0]), let minute = Int64(time[1]),
      (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour),
      (0...59).contains(minute)
    else {
      return nil
    }
    var millisecond: Int64 = 0
    if time.count == 3 {
      let seconds = time[2].split(separator: ".", omittingEmptySubsequences: false)
      guard seconds[0].count == 2, let second = Int64(seconds[0]), (0...59).contains(second)
      else {
        return nil
      }
      millisecond = second * 1000
      if seconds.count == 2 {
        guard seconds.count == 2, (1...7).contains(seconds[1].count),
          let fraction = Double("0." + seconds[1])
        else {
          return nil
        }
        millisecond += Int64((fraction * 1000).rounded())
      }
    }
    let total =
      (days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60)
      * 1000 + millisecond
    return Date(timeIntervalSince1970: Double(total) / 1000)
  }
}
