//! Labels that fit: charts are drawn at one SVG unit per CSS pixel, so their text keeps the
//! size the style sheet gives it, and an axis that is short for its labels shows fewer
//! ticks instead of smaller type. Widths are estimated (the page cannot measure text
//! before drawing it), on the generous side so that labels never touch.

use super::linear_ticks;

/// Estimated width of `text` at `font` px in a proportional UI font, per character at least
/// its width in DejaVu Sans (Linux's usual fallback for `system-ui`, wider than Segoe UI,
/// SF or Noto Sans; measured in Chromium): CJK and full-width characters 1.15 em (1 em in
/// a CJK font; the boxes drawn where none is installed are wider), m, w, M, W and the
/// long dash 1 em, the symbols + % × = < > 0.95 em, the round upper-case letters C D G H
/// N O Q U 0.79 em and the others 0.7 em, digits and other lower-case letters 0.64 em, the
/// narrow letters f i j l r t I J 0.42 em, spaces and other punctuation 0.4 em.
pub fn text_width(text: &str, font: f64) -> f64 {
    let ems: f64 = text
        .chars()
        .map(|c| match c {
            _ if c >= '\u{2E80}' => 1.15,
            'm' | 'w' | 'M' | 'W' | '—' => 1.0,
            '+' | '%' | '×' | '=' | '<' | '>' => 0.95,
            'f' | 'i' | 'j' | 'l' | 'r' | 't' | 'I' | 'J' => 0.42,
            'C' | 'D' | 'G' | 'H' | 'N' | 'O' | 'Q' | 'U' => 0.79,
            _ if c.is_ascii_uppercase() => 0.7,
            _ if c.is_ascii_alphanumeric() => 0.64,
            _ => 0.4,
        })
        .sum();
    ems * font
}

/// Ticks on a linear axis over `[min, max]` drawn `length` px long: the most (about
/// `max_count` at most) whose neighbouring labels, `width_of(tick)` px each, stay `gap` px
/// apart. Two ends at least, unless even they collide (then the first alone).
pub fn fitting_ticks(
    min: f64,
    max: f64,
    length: f64,
    max_count: usize,
    gap: f64,
    width_of: impl Fn(f64) -> f64,
) -> Vec<f64> {
    if max.is_nan() || min.is_nan() || max <= min || !length.is_finite() || length <= 0.0 {
        return linear_ticks(min, max, 1);
    }
    let px_per_unit = length / (max - min);
    let fits = |ticks: &[f64]| {
        ticks.windows(2).all(|pair| {
            let room = (pair[1] - pair[0]) * px_per_unit;
            room >= (width_of(pair[0]) + width_of(pair[1])) / 2.0 + gap
        })
    };
    for target in (1..=max_count.max(1)).rev() {
        let ticks = linear_ticks(min, max, target);
        if fits(&ticks) {
            return ticks;
        }
    }
    linear_ticks(min, max, 1).into_iter().take(1).collect()
}

/// Of labels `spacing` px apart that each need `needed` px, label every n-th: the
/// smallest such n (1 when they all fit).
pub fn label_stride(spacing: f64, needed: f64) -> usize {
    if spacing <= 0.0 || !spacing.is_finite() {
        return usize::MAX;
    }
    (needed / spacing).ceil().max(1.0) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_widths_grow_with_the_text_and_the_font() {
        assert_eq!(text_width("", 11.0), 0.0);
        assert!(text_width("10 GiB", 14.0) > text_width("10 GiB", 11.0));
        assert!(text_width("100 TFLOP/s", 11.0) > text_width("1 GFLOP/s", 11.0));
        // A CJK label is wider per character than a Latin one.
        assert!(text_width("显存", 11.0) > text_width("ab", 11.0));
        // At least DejaVu Sans's width (Chromium's measure at 100 px, 2026-12-05: the
        // lever label that was cut off at 1366 x 768, a tick, a rate), within 15 %.
        for (text, dejavu) in [
            ("Memory capacity +100 %", 1294.0),
            ("1,000", 286.4),
            ("100 TFLOP/s", 618.3),
        ] {
            let estimate = text_width(text, 100.0);
            assert!(
                (dejavu..dejavu * 1.15).contains(&estimate),
                "{text}: {estimate}"
            );
        }
    }

    #[test]
    fn short_axes_get_fewer_ticks_never_crowded_ones() {
        let width = |t: f64| text_width(&format!("{t}"), 11.0);
        let wide = fitting_ticks(0.0, 24.0, 400.0, 8, 6.0, width);
        let narrow = fitting_ticks(0.0, 24.0, 60.0, 8, 6.0, width);
        assert!(wide.len() > narrow.len(), "{wide:?} {narrow:?}");
        assert!(narrow.len() >= 2, "{narrow:?}");
        for ticks in [&wide, &narrow] {
            let span = if ticks == &wide { 400.0 } else { 60.0 };
            for pair in ticks.windows(2) {
                let room = (pair[1] - pair[0]) / 24.0 * span;
                assert!(
                    room >= (width(pair[0]) + width(pair[1])) / 2.0 + 6.0,
                    "{ticks:?}"
                );
            }
        }
        // Nothing fits: one label, not overlapping ones.
        assert_eq!(fitting_ticks(0.0, 24.0, 3.0, 8, 6.0, width).len(), 1);
        assert!(!fitting_ticks(5.0, 5.0, 100.0, 5, 2.0, width).is_empty());
    }

    #[test]
    fn label_strides_skip_just_enough() {
        assert_eq!(label_stride(30.0, 20.0), 1);
        assert_eq!(label_stride(15.0, 20.0), 2);
        assert_eq!(label_stride(6.0, 20.0), 4);
        assert_eq!(label_stride(0.0, 20.0), usize::MAX);
    }
}
