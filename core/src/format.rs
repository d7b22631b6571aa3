//! Number and unit formatting shared by the web app and the CLI, so that both print the
//! same figure the same way.
//!
//! Conventions: memory is shown in binary units (1 GiB = 2^30 bytes, 1 MiB = 2^20 bytes),
//! matching `torch.cuda.max_memory_allocated() / 2**30` and nvidia-smi's MiB. Rates and
//! counts use decimal SI prefixes (1 TFLOP/s = 10^12 FLOP/s). Figures keep three
//! significant digits: the estimates are not more precise than that.

const KIB: f64 = 1024.0;
const MIB: f64 = KIB * 1024.0;
const GIB: f64 = MIB * 1024.0;
const TIB: f64 = GIB * 1024.0;

/// Three significant digits, without trailing zeros after the point ("1.5", "12.3", "512");
/// from 1,000 up the whole number, with separators as `count` writes it ("18,931").
pub fn significant(value: f64) -> String {
    if !value.is_finite() {
        return "—".into();
    }
    if value == 0.0 {
        return "0".into();
    }
    let magnitude = value.abs().log10().floor() as i32;
    let decimals = (2 - magnitude).clamp(0, 6) as usize;
    let text = format!("{:.decimals$}", value.abs());
    let sign = if value < 0.0 { "-" } else { "" };
    match text.parse::<u64>() {
        Ok(whole) => format!("{sign}{}", count(whole)),
        Err(_) => format!("{sign}{}", text.trim_end_matches('0').trim_end_matches('.')),
    }
}

/// Bytes in the largest binary unit that keeps the number >= 1: "3.42 GiB", "512 MiB".
pub fn bytes(value: f64) -> String {
    let abs = value.abs();
    let (divisor, unit) = if abs >= TIB {
        (TIB, "TiB")
    } else if abs >= GIB {
        (GIB, "GiB")
    } else if abs >= MIB {
        (MIB, "MiB")
    } else if abs >= KIB {
        (KIB, "KiB")
    } else {
        (1.0, "B")
    };
    format!("{} {unit}", significant(value / divisor))
}

/// Bytes always in GiB, for axes and comparisons where one unit must hold: "0.42 GiB".
pub fn gib(value: f64) -> String {
    format!("{} GiB", significant(value / GIB))
}

/// A value with a decimal SI prefix: `si(2.5e13, "FLOP/s")` = "25 TFLOP/s".
pub fn si(value: f64, unit: &str) -> String {
    const PREFIXES: [(f64, &str); 6] = [
        (1e18, "E"),
        (1e15, "P"),
        (1e12, "T"),
        (1e9, "G"),
        (1e6, "M"),
        (1e3, "k"),
    ];
    let abs = value.abs();
    let (divisor, prefix) = PREFIXES
        .iter()
        .find(|(scale, _)| abs >= *scale)
        .copied()
        .unwrap_or((1.0, ""));
    format!("{} {prefix}{unit}", significant(value / divisor))
}

/// FLOP/s: "136 TFLOP/s".
pub fn flop_rate(value: f64) -> String {
    si(value, "FLOP/s")
}

/// FLOP count: "1.23 GFLOP".
pub fn flops(value: f64) -> String {
    si(value, "FLOP")
}

/// Bandwidth in decimal bytes per second, as datasheets state it: "768 GB/s".
pub fn bandwidth(bytes_per_second: f64) -> String {
    si(bytes_per_second, "B/s")
}

/// A duration in the unit a person would use: "850 µs", "12.3 ms", "4.5 s", "3.2 min",
/// "2.1 h", "3.4 d".
pub fn duration(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "—".into();
    }
    let abs = seconds.abs();
    let (value, unit) = if abs < 1e-3 {
        (seconds * 1e6, "µs")
    } else if abs < 1.0 {
        (seconds * 1e3, "ms")
    } else if abs < 60.0 {
        (seconds, "s")
    } else if abs < 3600.0 {
        (seconds / 60.0, "min")
    } else if abs < 86_400.0 {
        (seconds / 3600.0, "h")
    } else {
        (seconds / 86_400.0, "d")
    };
    format!("{} {unit}", significant(value))
}

/// A parameter count as models are named: "72.2 k", "9.82 M", "1.01 B".
pub fn params(count: u64) -> String {
    let n = count as f64;
    match n {
        n if n >= 1e9 => format!("{} B", significant(n / 1e9)),
        n if n >= 1e6 => format!("{} M", significant(n / 1e6)),
        n if n >= 1e3 => format!("{} k", significant(n / 1e3)),
        n => significant(n),
    }
}

/// Integer with thousands separators: "5,122,176".
pub fn count(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// US dollars: whole dollars with separators from $100 up, cents from 10 cents up, three
/// significant digits below (per-experiment costs are cents, per-sample ones fractions of
/// a cent): "$12,400", "$3.17", "$0.0312", "$0.00421"; zero is "$0".
pub fn money(usd: f64) -> String {
    money_with("$", usd)
}

/// Chinese yuan, written like `money`: "¥88,000".
pub fn money_cny(cny: f64) -> String {
    money_with("¥", cny)
}

fn money_with(symbol: &str, amount: f64) -> String {
    if !amount.is_finite() {
        return "—".into();
    }
    let sign = if amount < 0.0 { "-" } else { "" };
    let abs = amount.abs();
    // Zero as a whole number: an axis's first tick beside "$50,000" reads "$0".
    if abs >= 100.0 || abs == 0.0 {
        format!("{sign}{symbol}{}", count(abs.round() as u64))
    } else if abs >= 0.1 {
        // Below 10 cents two decimals would leave one digit ($0.03 beside $0.00734).
        format!("{sign}{symbol}{abs:.2}")
    } else {
        format!("{sign}{symbol}{}", significant(abs))
    }
}

/// A fraction as a whole percentage: 0.314 -> "31 %"; below 10 % one decimal is kept.
pub fn percent(fraction: f64) -> String {
    if !fraction.is_finite() {
        return "—".into();
    }
    let pct = fraction * 100.0;
    if pct.abs() < 10.0 && pct.round() != pct {
        format!("{pct:.1} %")
    } else if pct >= 1000.0 {
        format!("{} %", count(pct.round() as u64))
    } else {
        format!("{pct:.0} %")
    }
}

/// A ratio such as a speedup: "3.62×".
pub fn times(ratio: f64) -> String {
    format!("{}×", significant(ratio))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_keeps_three_digits() {
        assert_eq!(significant(1.23456), "1.23");
        assert_eq!(significant(31.4159), "31.4");
        assert_eq!(significant(314.159), "314");
        assert_eq!(significant(31_415.9), "31,416");
        assert_eq!(significant(-1_234.4), "-1,234");
        assert_eq!(significant(999.6), "1,000");
        assert_eq!(significant(-0.5), "-0.5");
        assert_eq!(significant(0.0031415), "0.00314");
        assert_eq!(significant(1.5), "1.5");
        assert_eq!(significant(2.0), "2");
        assert_eq!(significant(0.0), "0");
        assert_eq!(significant(f64::NAN), "—");
    }

    #[test]
    fn bytes_use_binary_units() {
        assert_eq!(bytes(24.0 * GIB), "24 GiB");
        assert_eq!(bytes(500.0 * MIB), "500 MiB");
        // 1.05e8 fp32 values (the article's 3-D conv output) = 4.2e8 B = 0.391 GiB.
        assert_eq!(bytes(1.048_576e8 * 4.0), "400 MiB");
        assert_eq!(bytes(1536.0), "1.5 KiB");
        assert_eq!(bytes(12.0), "12 B");
        assert_eq!(gib(0.5 * GIB), "0.5 GiB");
    }

    #[test]
    fn parameter_counts_read_as_model_sizes() {
        assert_eq!(params(72_246), "72.2 k");
        assert_eq!(params(9_824_384), "9.82 M");
        assert_eq!(params(1_012_762_512), "1.01 B");
        assert_eq!(params(640), "640");
    }

    #[test]
    fn si_prefixes() {
        assert_eq!(flop_rate(34.1e12), "34.1 TFLOP/s");
        assert_eq!(flops(1.23e9), "1.23 GFLOP");
        assert_eq!(bandwidth(768e9), "768 GB/s");
        assert_eq!(si(12.0, "FLOP"), "12 FLOP");
        assert_eq!(si(2.5e15, "FLOP"), "2.5 PFLOP");
    }

    #[test]
    fn durations_pick_a_human_unit() {
        assert_eq!(duration(0.000_85), "850 µs");
        assert_eq!(duration(0.0123), "12.3 ms");
        assert_eq!(duration(4.5), "4.5 s");
        assert_eq!(duration(192.0), "3.2 min");
        assert_eq!(duration(7560.0), "2.1 h");
        assert_eq!(duration(3.0 * 86_400.0), "3 d");
    }

    #[test]
    fn counts_money_percent() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(5_122_176), "5,122,176");
        assert_eq!(money(12_400.4), "$12,400");
        assert_eq!(money(3.171), "$3.17");
        assert_eq!(money(-250.0), "-$250");
        assert_eq!(money(0.004_213), "$0.00421");
        assert_eq!(money(0.031_24), "$0.0312");
        assert_eq!(money(0.25), "$0.25");
        assert_eq!(money(0.0), "$0");
        assert_eq!(money_cny(0.0), "¥0");
        assert_eq!(percent(0.314), "31 %");
        assert_eq!(percent(0.025), "2.5 %");
        assert_eq!(percent(0.05), "5 %");
        assert_eq!(percent(-0.12), "-12 %");
        assert_eq!(percent(11.58), "1,158 %");
        assert_eq!(times(3.624), "3.62×");
    }

    #[test]
    fn yuan_are_written_like_dollars() {
        assert_eq!(money_cny(88_000.4), "¥88,000");
        assert_eq!(money_cny(3.174), "¥3.17");
        assert_eq!(money(3.174), "$3.17");
    }
}
