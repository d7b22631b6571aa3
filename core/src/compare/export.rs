//! Comparison results as CSV: one row per metric, one column per option, plain SI
//! numbers (bytes, seconds, samples/s, USD, W); an empty cell where an option has no
//! figure.

use super::{ComparisonReport, Metric};

impl Metric {
    /// Column header: the metric and its unit.
    pub fn csv_name(self) -> &'static str {
        match self {
            Metric::MemoryUtilization => "memory_per_budget",
            Metric::MaxBatch => "max_batch",
            Metric::LargestPatch => "largest_patch_px",
            Metric::LargestBands => "largest_bands",
            Metric::SamplesPerS => "samples_per_s",
            Metric::RunTime => "run_time_s",
            Metric::SweepTime => "sweep_time_s",
            Metric::Tco => "tco_usd",
            Metric::CostPerExperiment => "usd_per_experiment",
            Metric::Power => "power_w",
            Metric::Cards => "cards",
            Metric::OpsHours => "ops_hours_per_month",
        }
    }
}

/// RFC 4180 quoting where a cell needs it.
fn csv_cell(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

pub fn results_csv(report: &ComparisonReport) -> String {
    let mut out = String::from("metric");
    for option in &report.options {
        out.push(',');
        out.push_str(&csv_cell(&option.label));
    }
    out.push('\n');
    for row in &report.rows {
        out.push_str(row.metric.csv_name());
        for value in &row.values {
            out.push(',');
            if let Some(v) = value {
                out.push_str(&v.to_string());
            }
        }
        out.push('\n');
    }
    out
}
