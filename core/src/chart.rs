//! Chart geometry for the web app's SVG views: scales, tick positions, stacked-bar
//! layout, heat-map grids, and labels that fit their axis (`fit`). Pure arithmetic, so it
//! is tested natively and the components only draw.

mod fit;

pub use fit::{fitting_ticks, label_stride, text_width};

/// Maps a linear domain onto a pixel range (the range may run backwards, as SVG's y does).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearScale {
    pub domain: (f64, f64),
    pub range: (f64, f64),
}

impl LinearScale {
    pub fn new(domain: (f64, f64), range: (f64, f64)) -> Self {
        LinearScale { domain, range }
    }

    pub fn map(&self, value: f64) -> f64 {
        let (d0, d1) = self.domain;
        let (r0, r1) = self.range;
        if d1 == d0 {
            return r0;
        }
        r0 + (value - d0) / (d1 - d0) * (r1 - r0)
    }
}

/// Maps a positive domain onto a pixel range logarithmically. Values at or below zero are
/// clamped to the domain's lower end rather than producing NaN.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogScale {
    pub domain: (f64, f64),
    pub range: (f64, f64),
}

impl LogScale {
    pub fn new(domain: (f64, f64), range: (f64, f64)) -> Self {
        LogScale { domain, range }
    }

    pub fn map(&self, value: f64) -> f64 {
        let lo = self.domain.0.max(f64::MIN_POSITIVE);
        let hi = self.domain.1.max(lo);
        let v = if value > 0.0 { value } else { lo };
        LinearScale::new((lo.log10(), hi.log10()), self.range).map(v.log10())
    }
}

/// Step of 1, 2 or 5 times a power of ten that splits `span` into about `target` parts.
pub fn nice_step(span: f64, target: usize) -> f64 {
    if !span.is_finite() || span <= 0.0 {
        return 1.0;
    }
    let raw = span / target.max(1) as f64;
    let power = 10f64.powf(raw.log10().floor());
    let fraction = raw / power;
    let nice = if fraction <= 1.0 {
        1.0
    } else if fraction <= 2.0 {
        2.0
    } else if fraction <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * power
}

/// Rounds a domain outwards to multiples of the nice step, so axes end on a tick.
pub fn nice_domain(min: f64, max: f64, target: usize) -> (f64, f64) {
    let (min, max) = if max > min {
        (min, max)
    } else {
        (min, min + 1.0)
    };
    let step = nice_step(max - min, target);
    ((min / step).floor() * step, (max / step).ceil() * step)
}

/// Tick values at multiples of the nice step inside `[min, max]`.
pub fn linear_ticks(min: f64, max: f64, target: usize) -> Vec<f64> {
    if !(min.is_finite() && max.is_finite()) || max < min {
        return Vec::new();
    }
    let step = nice_step(max - min, target);
    let first = (min / step).ceil() as i64;
    let last = (max / step).floor() as i64;
    // Multiplying the index (not accumulating) keeps ticks free of rounding drift.
    (first..=last).map(|i| i as f64 * step).collect()
}

/// Widens a positive domain outwards to whole decades: (3.2, 870) -> (1, 1000).
pub fn decade_domain(min: f64, max: f64) -> (f64, f64) {
    let lo = min.max(f64::MIN_POSITIVE).log10().floor();
    let hi = max.max(min).max(f64::MIN_POSITIVE).log10().ceil();
    let hi = if hi > lo { hi } else { lo + 1.0 };
    (10f64.powf(lo), 10f64.powf(hi))
}

/// Powers of ten inside a positive domain (the labelled ticks of a log axis).
pub fn decade_ticks(min: f64, max: f64) -> Vec<f64> {
    if min <= 0.0 || max < min || !max.is_finite() {
        return Vec::new();
    }
    // The small tolerance keeps 1000 in (1, 1000) despite log10 rounding.
    let first = (min.log10() - 1e-9).ceil() as i32;
    let last = (max.log10() + 1e-9).floor() as i32;
    (first..=last).map(|e| 10f64.powi(e)).collect()
}

/// One segment of a stacked bar: where it starts and ends along the bar, in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    pub start: f64,
    pub end: f64,
}

impl Segment {
    pub fn length(&self) -> f64 {
        self.end - self.start
    }
}

/// Lays out values end to end along a scale starting at zero. Negative or non-finite
/// values take no room, so a bad figure cannot push the other segments backwards.
pub fn stack(values: &[f64], scale: &LinearScale) -> Vec<Segment> {
    let mut running = 0.0;
    values
        .iter()
        .map(|&v| {
            let start = scale.map(running);
            if v.is_finite() && v > 0.0 {
                running += v;
            }
            Segment {
                start,
                end: scale.map(running),
            }
        })
        .collect()
}

/// Horizontal bars sharing one axis from zero, each row a stack of values (the cost
/// chart: a box's cost term by term beside the cloud's single bar).
#[derive(Clone, Debug, PartialEq)]
pub struct BarRows {
    pub scale: LinearScale,
    /// Where the axis ends: a nice round value at or above the longest row.
    pub axis_max: f64,
    pub ticks: Vec<f64>,
    pub rows: Vec<Vec<Segment>>,
}

/// Lays out `rows` (each a stack of values) on one axis spanning `range` pixels, with
/// about `target_ticks` round ticks. Bad values take no room, as in [`stack`].
pub fn bar_rows(rows: &[&[f64]], range: (f64, f64), target_ticks: usize) -> BarRows {
    let longest = rows
        .iter()
        .map(|row| {
            row.iter()
                .filter(|v| v.is_finite() && **v > 0.0)
                .sum::<f64>()
        })
        .fold(0.0, f64::max);
    let (_, axis_max) = nice_domain(0.0, longest, target_ticks);
    let scale = LinearScale::new((0.0, axis_max), range);
    BarRows {
        scale,
        axis_max,
        ticks: linear_ticks(0.0, axis_max, target_ticks),
        rows: rows.iter().map(|row| stack(row, &scale)).collect(),
    }
}

/// Bars from a common base (1x in a speed-up chart) to each value, in pixels; a missing
/// or non-finite value gets an empty bar at the base.
pub fn bars_from(base: f64, values: &[Option<f64>], scale: &LinearScale) -> Vec<Segment> {
    let at = scale.map(base);
    values
        .iter()
        .map(|v| match v {
            Some(v) if v.is_finite() => {
                let end = scale.map(*v);
                Segment {
                    start: at.min(end),
                    end: at.max(end),
                }
            }
            _ => Segment { start: at, end: at },
        })
        .collect()
}

/// A rectangle in SVG coordinates (y grows downwards).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Rect {
    pub fn center(&self) -> (f64, f64) {
        (self.x + self.width / 2.0, self.y + self.height / 2.0)
    }
}

/// A heat map's grid: `rows` x `cols` equal cells filling `area`, row 0 at the bottom (so
/// a row index that grows with a quantity reads upwards, as on a y axis).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    pub area: Rect,
    pub rows: usize,
    pub cols: usize,
}

impl Grid {
    pub fn new(area: Rect, rows: usize, cols: usize) -> Self {
        Grid {
            area,
            rows: rows.max(1),
            cols: cols.max(1),
        }
    }

    pub fn cell_width(&self) -> f64 {
        self.area.width / self.cols as f64
    }

    pub fn cell_height(&self) -> f64 {
        self.area.height / self.rows as f64
    }

    /// The cell at `row` (from the bottom) and `col` (from the left).
    pub fn cell(&self, row: usize, col: usize) -> Rect {
        let (w, h) = (self.cell_width(), self.cell_height());
        Rect {
            x: self.area.x + col as f64 * w,
            y: self.area.y + (self.rows - 1 - row.min(self.rows - 1)) as f64 * h,
            width: w,
            height: h,
        }
    }

    /// The border between cell (`row` - 1, `col`) and the one above it, (`row`, `col`):
    /// (x1, x2, y). Row 0 has no cell below: its bottom edge.
    pub fn edge_below(&self, row: usize, col: usize) -> (f64, f64, f64) {
        let c = self.cell(row, col);
        (c.x, c.x + c.width, c.y + c.height)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn linear_scale_maps_ends_and_middle_even_reversed() {
        let s = LinearScale::new((0.0, 10.0), (200.0, 0.0));
        assert!(close(s.map(0.0), 200.0));
        assert!(close(s.map(10.0), 0.0));
        assert!(close(s.map(2.5), 150.0));
        let flat = LinearScale::new((3.0, 3.0), (5.0, 9.0));
        assert_eq!(flat.map(3.0), 5.0);
    }

    #[test]
    fn log_scale_puts_decades_equally_apart() {
        let s = LogScale::new((1.0, 1000.0), (0.0, 300.0));
        assert!(close(s.map(1.0), 0.0));
        assert!(close(s.map(10.0), 100.0));
        assert!(close(s.map(100.0), 200.0));
        assert!(close(s.map(1000.0), 300.0));
        // Non-positive values clamp to the bottom instead of becoming NaN.
        assert!(close(s.map(0.0), 0.0));
        assert!(close(s.map(-5.0), 0.0));
    }

    #[test]
    fn nice_steps_are_1_2_5_times_powers_of_ten() {
        assert!(close(nice_step(10.0, 5), 2.0));
        assert!(close(nice_step(24.0, 5), 5.0));
        assert!(close(nice_step(1.0, 4), 0.5));
        assert!(close(nice_step(7.0, 7), 1.0));
        assert!(close(nice_step(0.0, 5), 1.0));
        for span in [0.003, 0.7, 13.0, 999.0, 2.5e10] {
            let step = nice_step(span, 5);
            let mantissa = step / 10f64.powf(step.log10().floor());
            assert!(
                [1.0, 2.0, 5.0, 10.0].iter().any(|m| close(*m, mantissa)),
                "{span} -> {step}"
            );
            let parts = span / step;
            assert!((2.0..=10.0).contains(&parts), "{span} -> {parts} parts");
        }
    }

    #[test]
    fn linear_ticks_cover_the_domain_without_drift() {
        let ticks = linear_ticks(0.0, 24.0, 5);
        assert_eq!(ticks, vec![0.0, 5.0, 10.0, 15.0, 20.0]);
        let fine = linear_ticks(0.0, 1.0, 10);
        assert_eq!(fine.len(), 11);
        assert_eq!(fine[3], 3.0 * 0.1);
        assert!(linear_ticks(5.0, 1.0, 5).is_empty());
        assert_eq!(nice_domain(0.3, 23.1, 5), (0.0, 25.0));
    }

    #[test]
    fn decade_ticks_and_domain() {
        assert_eq!(decade_domain(3.2, 870.0), (1.0, 1000.0));
        assert_eq!(decade_ticks(1.0, 1000.0), vec![1.0, 10.0, 100.0, 1000.0]);
        let small = decade_ticks(0.02, 3.0);
        assert_eq!(small.len(), 2);
        assert!(close(small[0], 0.1) && close(small[1], 1.0));
        assert!(decade_ticks(0.0, 10.0).is_empty());
        // A single value still gets a decade of room.
        assert_eq!(decade_domain(10.0, 10.0), (10.0, 100.0));
    }

    #[test]
    fn stacked_segments_abut_and_sum_to_the_total() {
        let scale = LinearScale::new((0.0, 100.0), (0.0, 500.0));
        let values = [10.0, 0.0, 30.0, -4.0, f64::NAN, 20.0];
        let segs = stack(&values, &scale);
        assert_eq!(segs.len(), values.len());
        for pair in segs.windows(2) {
            assert_eq!(pair[0].end, pair[1].start);
        }
        assert!(close(segs[0].length(), 50.0));
        assert_eq!(segs[1].length(), 0.0);
        assert_eq!(segs[3].length(), 0.0);
        assert_eq!(segs[4].length(), 0.0);
        assert!(close(segs.last().unwrap().end, 300.0));
    }

    #[test]
    fn bar_rows_share_one_axis_that_holds_the_longest_row() {
        let own = [300.0, 200.0, 50.0];
        let cloud = [900.0];
        let layout = bar_rows(&[&own, &cloud], (10.0, 410.0), 5);
        assert_eq!(layout.axis_max, 1000.0);
        assert_eq!(layout.ticks.first(), Some(&0.0));
        assert_eq!(layout.ticks.last(), Some(&1000.0));
        assert_eq!(layout.rows.len(), 2);
        // Both rows start at zero on the same scale: lengths compare as the values do.
        assert!(close(layout.rows[0][0].start, 10.0) && close(layout.rows[1][0].start, 10.0));
        assert!(close(layout.rows[0][2].end, layout.scale.map(550.0)));
        assert!(close(layout.rows[1][0].length(), 900.0 * 0.4));
        assert!(layout.rows[1][0].end <= 410.0);
        // Nothing to show still gives a usable axis.
        let empty = bar_rows(&[&[0.0], &[f64::NAN]], (0.0, 100.0), 5);
        assert!(empty.axis_max > 0.0);
        assert_eq!(empty.rows[1][0].length(), 0.0);
    }

    #[test]
    fn grid_cells_tile_the_area_with_row_zero_at_the_bottom() {
        let area = Rect {
            x: 100.0,
            y: 10.0,
            width: 250.0,
            height: 110.0,
        };
        let g = Grid::new(area, 11, 5);
        assert!(close(g.cell_width(), 50.0) && close(g.cell_height(), 10.0));
        let bottom_left = g.cell(0, 0);
        assert!(close(bottom_left.x, 100.0) && close(bottom_left.y, 110.0));
        let top_right = g.cell(10, 4);
        assert!(close(top_right.x, 300.0) && close(top_right.y, 10.0));
        assert!(close(top_right.x + top_right.width, 350.0));
        // Neighbours abut: no gap or overlap between rows or columns.
        for row in 1..11 {
            let (below, above) = (g.cell(row - 1, 2), g.cell(row, 2));
            assert!(close(above.y + above.height, below.y));
            let (x1, x2, y) = g.edge_below(row, 2);
            assert!(close(y, below.y) && close(x1, above.x) && close(x2 - x1, 50.0));
        }
        assert!(close(g.cell(3, 1).x + 50.0, g.cell(3, 2).x));
        assert_eq!(g.cell(3, 1).center(), (175.0, 85.0));
        // A row past the top stays on the grid; an empty grid has one cell.
        assert_eq!(g.cell(99, 0).y, g.cell(10, 0).y);
        assert_eq!(Grid::new(area, 0, 0).cell(0, 0), area);
    }

    #[test]
    fn bars_grow_from_the_base_either_way() {
        let scale = LinearScale::new((0.0, 2.0), (100.0, 300.0));
        let bars = bars_from(
            1.0,
            &[Some(1.5), Some(1.0), Some(0.5), None, Some(f64::NAN)],
            &scale,
        );
        assert!(close(bars[0].start, 200.0) && close(bars[0].end, 250.0));
        assert_eq!(bars[1].length(), 0.0);
        assert!(close(bars[2].start, 150.0) && close(bars[2].end, 200.0));
        assert_eq!((bars[3].start, bars[3].length()), (200.0, 0.0));
        assert_eq!(bars[4].length(), 0.0);
    }
}
