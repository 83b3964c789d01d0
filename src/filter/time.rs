//! `--changed-within`, `--changed-before` and `--newer`: bounds on one of an entry's
//! times, modification by default, as fd and `find -newer` define them; `--time`
//! chooses access, inode change or birth time instead (find's `-amin`, `-cmin`,
//! `-anewer`, `-newerXY`, bfs's `-Bmin`).
//!
//! A bound is a point in time, to the nanosecond: an entry changed within `WHEN` if
//! its time is strictly after it, before `WHEN` if strictly before it (fd's rules),
//! and newer than a file if strictly after that file's same time (find's
//! `-newerXY` with X and Y the same). Several lower bounds keep the latest, several
//! upper bounds the earliest.
//!
//! `WHEN` is one of:
//! - a duration back from now: numbers with units, `30s`, `10min`, `2h`, `3d`, `1w`,
//!   `1d12h`, `2 hours`, `1mo`, `1y`. Seconds, minutes and hours are exact; days,
//!   weeks, months and years are calendar units in the local time zone, applied
//!   first (so `1d` across a change to summer time is 23 hours; a month back from
//!   31 March is the last day of February), as fd's parser (jiff) does;
//! - a date or date-time: `2026-11-01` (its midnight), `2026-11-01 08:30`,
//!   `2026-11-01T08:30:00`, in local time, or with `Z` or an offset such as `+02:00`
//!   after the time;
//! - `@` and whole seconds since the Unix epoch, `@1793518200`.
//!
//! Local time is the C library's: `TZ` if set, else `/etc/localtime`, converted by
//! `mktime`, which resolves a time in a daylight-saving gap by moving it forward.
//!
//! Hand-written rather than parsed by jiff, the crate fd uses: jiff made the static
//! binary 483 KB (25%) larger, and on first use indexes the whole zone database
//! (26 directories of `/usr/share/zoneinfo`), which made a run with a time option
//! start 0.8 ms later; `mktime` reads one file.

use crate::os::stat::{Stat, TimeField};

/// Nanoseconds since the Unix epoch: every bound, and every time of a `stat`, as one
/// number.
pub type Nanos = i128;

const NANOS_PER_SECOND: Nanos = 1_000_000_000;

/// The bounds an entry's time must fall within; none by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeBounds {
    /// Which time of an entry the bounds apply to (`--time`).
    pub field: TimeField,
    /// Changed strictly after this (`--changed-within`, `--newer`).
    after: Option<Nanos>,
    /// Changed strictly before this (`--changed-before`).
    before: Option<Nanos>,
}

impl TimeBounds {
    /// True when no bound is set, so no `stat` is needed for it.
    pub fn is_empty(&self) -> bool {
        self.after.is_none() && self.before.is_none()
    }

    /// Adds a lower bound: only entries changed strictly after `time`.
    pub fn changed_after(&mut self, time: Nanos) {
        self.after = Some(self.after.map_or(time, |after| after.max(time)));
    }

    /// Adds an upper bound: only entries changed strictly before `time`.
    pub fn changed_before(&mut self, time: Nanos) {
        self.before = Some(self.before.map_or(time, |before| before.min(time)));
    }

    /// True when a time of `time` is within every bound.
    pub fn accepts(&self, time: Nanos) -> bool {
        self.after.is_none_or(|after| time > after)
            && self.before.is_none_or(|before| time < before)
    }

    /// True when the chosen time of `stat` is within every bound. A birth time the
    /// filesystem does not record fails (the `stat` call reported it already).
    pub fn accepts_stat(&self, stat: &Stat) -> bool {
        stat.time(self.field)
            .is_some_and(|time| self.accepts(nanos(time)))
    }
}

/// A time as a `stat` gives it (seconds and nanoseconds) as one number.
pub fn nanos((seconds, nanoseconds): (i64, u32)) -> Nanos {
    Nanos::from(seconds) * NANOS_PER_SECOND + Nanos::from(nanoseconds)
}

/// The current time, what durations count back from.
pub fn now() -> Nanos {
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    since_epoch.as_nanos() as Nanos
}

const EXPECTED: &str = "expected a duration such as 30s, 10min, 2h, 3d, 1w or 1d12h, a \
                        date or date-time such as 2026-11-01, '2026-11-01 08:30' or \
                        2026-11-01T08:30:00 (local time), or @ and seconds since 1970";

/// Parses a `WHEN` (see the module comment); a duration counts back from `now`.
pub fn parse_when(text: &str, now: Nanos) -> Result<Nanos, String> {
    let text = text.trim();
    let fail = |why: &str| Err(format!("{why}; {EXPECTED}"));
    if let Some(seconds) = text.strip_prefix('@') {
        return match seconds.parse::<i64>() {
            Ok(seconds) => Ok(Nanos::from(seconds) * NANOS_PER_SECOND),
            Err(_) => fail("'@' must be followed by a whole number of seconds"),
        };
    }
    if text.len() >= 5
        && text.as_bytes()[..4].iter().all(u8::is_ascii_digit)
        && text.as_bytes()[4] == b'-'
    {
        return match parse_date_time(text) {
            Ok(time) => Ok(time),
            Err(why) => fail(&why),
        };
    }
    match parse_duration(text) {
        Ok(duration) => duration.before(now).ok_or_else(|| {
            format!("'{text}' back from now is not a time this system can represent")
        }),
        Err(why) => fail(&why),
    }
}

/// A duration as typed: calendar units (applied to the local date) and an exact
/// number of seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Duration {
    years: i64,
    months: i64,
    days: i64,
    seconds: i64,
}

/// The units a duration may use, longest spelling first within each.
const UNITS: &[(&str, Unit)] = &[
    ("years", Unit::Year),
    ("year", Unit::Year),
    ("yrs", Unit::Year),
    ("yr", Unit::Year),
    ("y", Unit::Year),
    ("months", Unit::Month),
    ("month", Unit::Month),
    ("mos", Unit::Month),
    ("mo", Unit::Month),
    ("weeks", Unit::Week),
    ("week", Unit::Week),
    ("wks", Unit::Week),
    ("wk", Unit::Week),
    ("w", Unit::Week),
    ("days", Unit::Day),
    ("day", Unit::Day),
    ("d", Unit::Day),
    ("hours", Unit::Hour),
    ("hour", Unit::Hour),
    ("hrs", Unit::Hour),
    ("hr", Unit::Hour),
    ("h", Unit::Hour),
    ("minutes", Unit::Minute),
    ("minute", Unit::Minute),
    ("mins", Unit::Minute),
    ("min", Unit::Minute),
    ("m", Unit::Minute),
    ("seconds", Unit::Second),
    ("second", Unit::Second),
    ("secs", Unit::Second),
    ("sec", Unit::Second),
    ("s", Unit::Second),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Year,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
}

/// `1d12h`, `2 hours 30 min`: whole numbers each followed by a unit.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let mut rest = text.trim_start();
    if rest.is_empty() {
        return Err("the value is empty".to_string());
    }
    let mut duration = Duration::default();
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if digits == 0 {
            return Err(format!("'{rest}' does not start with a number"));
        }
        let number: i64 = rest[..digits]
            .parse()
            .map_err(|_| format!("'{}' is too large", &rest[..digits]))?;
        rest = rest[digits..].trim_start();
        if rest.starts_with('.') {
            return Err(
                "decimal numbers are not accepted; use a smaller unit (90min, not \
                        1.5h)"
                    .to_string(),
            );
        }
        let word = rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        let unit = rest[..word].to_ascii_lowercase();
        let Some(&(_, unit)) = UNITS.iter().find(|(name, _)| *name == unit) else {
            return Err(match word {
                0 => format!("{number} has no unit (s, min, h, d, w, mo or y)"),
                _ => format!("unknown unit '{}'", &rest[..word]),
            });
        };
        rest = rest[word..].trim_start();
        let too_large = || format!("'{text}' is too large");
        let (field, scale) = match unit {
            Unit::Year => (&mut duration.years, 1),
            Unit::Month => (&mut duration.months, 1),
            Unit::Week => (&mut duration.days, 7),
            Unit::Day => (&mut duration.days, 1),
            Unit::Hour => (&mut duration.seconds, 3600),
            Unit::Minute => (&mut duration.seconds, 60),
            Unit::Second => (&mut duration.seconds, 1),
        };
        *field = number
            .checked_mul(scale)
            .and_then(|n| field.checked_add(n))
            .ok_or_else(too_large)?;
    }
    Ok(duration)
}

impl Duration {
    /// The time this long before `now`: the calendar units on the local date (keeping
    /// the time of day), then the exact seconds.
    fn before(self, now: Nanos) -> Option<Nanos> {
        let seconds = i64::try_from(now.div_euclid(NANOS_PER_SECOND)).ok()?;
        let subsecond = now.rem_euclid(NANOS_PER_SECOND);
        let calendar = if self.years == 0 && self.months == 0 && self.days == 0 {
            seconds
        } else {
            let mut tm = local_time(seconds)?;
            let months = i64::from(tm.tm_year) * 12 + i64::from(tm.tm_mon)
                - self.years.checked_mul(12)?.checked_add(self.months)?;
            let (year, month) = (months.div_euclid(12), months.rem_euclid(12));
            tm.tm_year = i32::try_from(year).ok()?;
            tm.tm_mon = month as i32;
            // A month back from 31 March is the last day of February, not 3 March.
            let last_day = days_in_month(year + 1900, month as u32 + 1);
            tm.tm_mday = tm.tm_mday.min(last_day as i32);
            tm.tm_mday = i32::try_from(i64::from(tm.tm_mday) - self.days).ok()?;
            from_local_time(tm)?
        };
        let seconds = calendar.checked_sub(self.seconds)?;
        Some(Nanos::from(seconds) * NANOS_PER_SECOND + subsecond)
    }
}

/// `YYYY-MM-DD`, then optionally ` ` or `T` and `HH:MM` or `HH:MM:SS`, then
/// optionally `Z` or an offset `+HH:MM` / `-HH:MM`: the time it names.
fn parse_date_time(text: &str) -> Result<Nanos, String> {
    let bytes = text.as_bytes();
    let number = |at: usize, len: usize| -> Option<u32> {
        let digits = bytes.get(at..at + len)?;
        digits
            .iter()
            .all(u8::is_ascii_digit)
            .then(|| digits.iter().fold(0, |n, &d| n * 10 + u32::from(d - b'0')))
    };
    let shape = "a date is YYYY-MM-DD, a time after it HH:MM or HH:MM:SS";
    let (year, month, day) = match (
        number(0, 4),
        bytes.get(4),
        number(5, 2),
        bytes.get(7),
        number(8, 2),
    ) {
        (Some(y), Some(b'-'), Some(m), Some(b'-'), Some(d)) => (y, m, d),
        _ => return Err(shape.to_string()),
    };
    if !(1..=12).contains(&month) {
        return Err(format!("there is no month {month}"));
    }
    if day == 0 || day > days_in_month(i64::from(year), month) {
        return Err(format!("{year}-{month:02} has no day {day}"));
    }
    let (mut hour, mut minute, mut second) = (0, 0, 0);
    let mut at = 10;
    if matches!(bytes.get(at), Some(b' ' | b'T')) {
        match (number(at + 1, 2), bytes.get(at + 3), number(at + 4, 2)) {
            (Some(h), Some(b':'), Some(m)) => (hour, minute) = (h, m),
            _ => return Err(shape.to_string()),
        }
        at += 6;
        if bytes.get(at) == Some(&b':') {
            second = number(at + 1, 2).ok_or_else(|| shape.to_string())?;
            at += 3;
        }
        if hour > 23 || minute > 59 || second > 59 {
            return Err(format!(
                "{hour:02}:{minute:02}:{second:02} is not a time of day"
            ));
        }
    }
    let offset = match &text[at..] {
        "" => None,
        "Z" | "z" if at > 10 => Some(0),
        zone if at > 10 && zone.len() == 6 && zone.as_bytes()[3] == b':' => {
            let sign = match zone.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return Err(format!("'{zone}' is not an offset such as +02:00")),
            };
            match (number(at + 1, 2), number(at + 4, 2)) {
                (Some(h), Some(m)) if h < 24 && m < 60 => Some(sign * i64::from(h * 3600 + m * 60)),
                _ => return Err(format!("'{zone}' is not an offset such as +02:00")),
            }
        }
        other => return Err(format!("unexpected '{other}' after the date or time")),
    };
    let seconds = match offset {
        Some(offset) => {
            let days = days_from_civil(i64::from(year), month, day);
            days * 86_400 + i64::from(hour * 3600 + minute * 60 + second) - offset
        }
        None => {
            let mut tm = zeroed_tm();
            tm.tm_year = year as i32 - 1900;
            tm.tm_mon = month as i32 - 1;
            tm.tm_mday = day as i32;
            tm.tm_hour = hour as i32;
            tm.tm_min = minute as i32;
            tm.tm_sec = second as i32;
            from_local_time(tm)
                .ok_or_else(|| format!("'{text}' is not a time this system can represent"))?
        }
    };
    Ok(Nanos::from(seconds) * NANOS_PER_SECOND)
}

/// A `tm` with every field zero (and no zone name), to be filled in.
fn zeroed_tm() -> libc::tm {
    // SAFETY: `tm` is plain data, integers and one raw pointer, for which all-zero
    // bits are a valid value (the pointer null).
    unsafe { std::mem::zeroed() }
}

/// The local broken-down time of `seconds` since the epoch (`localtime_r`).
fn local_time(seconds: i64) -> Option<libc::tm> {
    let time = libc::time_t::try_from(seconds).ok()?;
    let mut tm = zeroed_tm();
    // SAFETY: both pointers are to live values of the right types; `localtime_r`
    // writes only `tm` and returns null on failure.
    let filled = unsafe { libc::localtime_r(&time, &mut tm) };
    (!filled.is_null()).then_some(tm)
}

/// Seconds since the epoch of the local time `tm` (`mktime`), whose fields may be out
/// of range (day 0 is the last day of the month before): the C library normalises
/// them. Whether summer time applies is left to it.
// `time_t` is `i64` on Linux but narrower elsewhere.
#[allow(clippy::unnecessary_cast)]
fn from_local_time(mut tm: libc::tm) -> Option<i64> {
    tm.tm_isdst = -1;
    // `mktime` returns -1 both for an error and for one second before the epoch; a
    // field it always fills in tells them apart.
    tm.tm_wday = -1;
    // SAFETY: `tm` is a valid `tm`; `mktime` reads and normalises it in place.
    let time = unsafe { libc::mktime(&mut tm) };
    (time != -1 || tm.tm_wday != -1).then_some(time as i64)
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to the given date of the proleptic Gregorian calendar
/// (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month = i64::from(month);
    let day_of_year =
        (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Nanos = NANOS_PER_SECOND;

    #[test]
    fn durations_parse() {
        let d = |years, months, days, seconds| Duration {
            years,
            months,
            days,
            seconds,
        };
        let cases: &[(&str, Duration)] = &[
            ("30s", d(0, 0, 0, 30)),
            ("10min", d(0, 0, 0, 600)),
            ("10m", d(0, 0, 0, 600)),
            ("2h", d(0, 0, 0, 7200)),
            ("3d", d(0, 0, 3, 0)),
            ("1w", d(0, 0, 7, 0)),
            ("1d12h", d(0, 0, 1, 43_200)),
            ("2 hours", d(0, 0, 0, 7200)),
            ("1h 30min 5s", d(0, 0, 0, 5405)),
            ("1H30M", d(0, 0, 0, 5400)),
            ("2mo", d(0, 2, 0, 0)),
            ("1y2w", d(1, 0, 14, 0)),
            ("0s", d(0, 0, 0, 0)),
        ];
        for &(text, want) in cases {
            assert_eq!(parse_duration(text), Ok(want), "{text}");
        }
        for (bad, says) in [
            ("", "empty"),
            ("3x", "unknown unit 'x'"),
            ("3", "has no unit"),
            ("h", "does not start with a number"),
            ("1d-", "does not start with a number"),
            ("1.5h", "decimal numbers are not accepted"),
            ("99999999999999999999s", "too large"),
            ("9999999999999999h", "too large"),
        ] {
            let err = parse_duration(bad).unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }

    #[test]
    fn exact_units_count_back_exactly() {
        let now = 1_793_518_200 * SECOND + 123;
        for (text, seconds) in [("30s", 30), ("2h", 7200), ("1h30m", 5400)] {
            assert_eq!(parse_when(text, now), Ok(now - seconds * SECOND), "{text}");
        }
    }

    #[test]
    fn calendar_units_keep_the_local_time_of_day() {
        // Whatever the local zone, a week back from noon is noon, seven dates earlier,
        // and a month back from 31 March is the last day of February.
        let noon = |y, m, d| {
            let mut tm = zeroed_tm();
            (tm.tm_year, tm.tm_mon, tm.tm_mday, tm.tm_hour) = (y - 1900, m - 1, d, 12);
            Nanos::from(from_local_time(tm).unwrap()) * SECOND
        };
        assert_eq!(parse_when("1w", noon(2026, 3, 31)), Ok(noon(2026, 3, 24)));
        assert_eq!(parse_when("1mo", noon(2026, 3, 31)), Ok(noon(2026, 2, 28)));
        assert_eq!(parse_when("1mo", noon(2024, 3, 31)), Ok(noon(2024, 2, 29)));
        assert_eq!(parse_when("1y", noon(2024, 2, 29)), Ok(noon(2023, 2, 28)));
        assert_eq!(
            parse_when("1y1mo", noon(2026, 1, 15)),
            Ok(noon(2024, 12, 15))
        );
        assert_eq!(parse_when("40d", noon(2026, 3, 1)), Ok(noon(2026, 1, 20)));
        assert_eq!(
            parse_when("1d2h", noon(2026, 6, 10)),
            Ok(noon(2026, 6, 9) - 7200 * SECOND)
        );
    }

    #[test]
    fn dates_with_an_offset_are_exact() {
        let cases: &[(&str, i64)] = &[
            ("1970-01-01T00:00:00Z", 0),
            ("1970-01-01T00:00Z", 0),
            ("2026-11-01T08:30:00Z", 1_793_521_800),
            ("2026-11-01 08:30:00+01:00", 1_793_518_200),
            ("2026-11-01T03:30-05:00", 1_793_521_800),
            ("2000-02-29T12:00:00Z", 951_825_600),
            ("1969-12-31T23:59:59Z", -1),
            ("@1793518200", 1_793_518_200),
            ("@-1", -1),
        ];
        for &(text, seconds) in cases {
            assert_eq!(
                parse_when(text, 0),
                Ok(Nanos::from(seconds) * SECOND),
                "{text}"
            );
        }
    }

    #[test]
    fn local_dates_agree_with_the_c_library() {
        // Whatever the zone (the integration tests set several): the same fields
        // through `mktime`. (2026-11-01 is a summer-time change in the US.)
        let local = |h, m, s| {
            let mut tm = zeroed_tm();
            (tm.tm_year, tm.tm_mon, tm.tm_mday) = (126, 10, 1);
            (tm.tm_hour, tm.tm_min, tm.tm_sec) = (h, m, s);
            Ok(Nanos::from(from_local_time(tm).unwrap()) * SECOND)
        };
        assert_eq!(parse_when("2026-11-01", 0), local(0, 0, 0));
        assert_eq!(parse_when("2026-11-01 08:30", 0), local(8, 30, 0));
        assert_eq!(parse_when("2026-11-01T08:30:15", 0), local(8, 30, 15));
    }

    #[test]
    fn bad_values_say_what_is_expected() {
        for (bad, says) in [
            ("3x", "unknown unit"),
            ("yesterday", "does not start with a number"),
            ("2026-13-01", "no month 13"),
            ("2026-02-29", "has no day 29"),
            ("2026-11-01 25:00", "not a time of day"),
            ("2026-11-01 08:60", "not a time of day"),
            ("2026-11-1", "a date is YYYY-MM-DD"),
            ("2026-11-01 8:30", "a date is YYYY-MM-DD"),
            ("2026-11-01X", "unexpected 'X'"),
            ("2026-11-01Z", "unexpected 'Z'"),
            ("2026-11-01T08:30+2", "unexpected '+2'"),
            ("2026-11-01T08:30+25:00", "not an offset"),
            ("@1.5", "whole number of seconds"),
            ("@", "whole number of seconds"),
        ] {
            let err = parse_when(bad, 0).unwrap_err();
            assert!(
                err.contains(says) && err.contains("expected a duration"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn civil_days() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(2026, 11, 1), 20_758);
        assert_eq!(days_in_month(2000, 2), 29);
        assert_eq!(days_in_month(1900, 2), 28);
        assert_eq!(days_in_month(2024, 2), 29);
        assert_eq!(days_in_month(2026, 4), 30);
    }

    #[test]
    fn bounds_are_strict_and_combine() {
        let mut bounds = TimeBounds::default();
        assert!(bounds.is_empty() && bounds.accepts(0));
        bounds.changed_after(100);
        bounds.changed_after(50); // the latest lower bound wins
        assert!(!bounds.accepts(100) && bounds.accepts(101));
        bounds.changed_before(200);
        bounds.changed_before(300);
        assert!(bounds.accepts(199) && !bounds.accepts(200));
        assert!(!bounds.is_empty());
    }
}
