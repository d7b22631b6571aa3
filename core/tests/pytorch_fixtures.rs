//! The Rust estimate against PyTorch: every case of `fixtures/pytorch_zoo.json` (written
//! by `tools/validate_zoo.py`, which measures the same zoo models in PyTorch) is rebuilt
//! from the zoo and analysed. Parameters must match exactly, forward and backward FLOPs
//! within 2 %, saved-for-backward bytes within 10 %. A failure lists every deviating
//! case, not just the first.

use hsi_gpu_core::analysis::analyze;
mod common;

use common::{read_fixture, CaseOptions};
use hsi_gpu_core::scenario::Precision;
use hsi_gpu_core::zoo::zoo_entry;
use serde::Deserialize;

const FLOPS_TOLERANCE: f64 = 0.02;
const SAVED_TOLERANCE: f64 = 0.10;

#[derive(Deserialize)]
struct Fixture {
    torch: String,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    model: String,
    options: CaseOptions,
    batch: u64,
    precision: Precision,
    params: u64,
    fwd_flops: f64,
    bwd_flops: f64,
    saved_bytes: f64,
}

impl Case {
    fn point(&self) -> String {
        let o = &self.options;
        let mut point = format!(
            "B={} s={} C={} n={}",
            o.bands, o.patch, o.classes, self.batch
        );
        if let Some(width) = o.width {
            point += &format!(" w={width}");
        }
        if let Some(size) = o.size {
            point += &format!(" {size:?}");
        }
        point
    }
}

fn load() -> Fixture {
    read_fixture("pytorch_zoo.json")
}

/// Relative error of `got` against `expected` (0 when both are 0).
fn relative_error(expected: f64, got: f64) -> f64 {
    if expected == got {
        0.0
    } else {
        (got - expected).abs() / expected.abs().max(f64::MIN_POSITIVE)
    }
}

#[test]
fn zoo_estimates_match_pytorch() {
    let fixture = load();
    assert!(!fixture.cases.is_empty(), "the fixture has no cases");
    let mut rows = Vec::new();
    for case in &fixture.cases {
        let entry = zoo_entry(&case.model)
            .unwrap_or_else(|| panic!("fixture model '{}' is not in the zoo", case.model));
        let spec = (entry.build)(&case.options.zoo())
            .unwrap_or_else(|e| panic!("{} {}: build failed: {e}", case.model, case.point()));
        let a = analyze(&spec, case.batch, case.precision)
            .unwrap_or_else(|e| panic!("{} {}: analysis failed: {e}", case.model, case.point()));
        let checks = [
            ("params", case.params as f64, a.params as f64, 0.0),
            ("fwd_flops", case.fwd_flops, a.fwd_flops, FLOPS_TOLERANCE),
            ("bwd_flops", case.bwd_flops, a.bwd_flops, FLOPS_TOLERANCE),
            (
                "saved_bytes",
                case.saved_bytes,
                a.saved_bytes,
                SAVED_TOLERANCE,
            ),
        ];
        for (what, expected, got, tolerance) in checks {
            let error = relative_error(expected, got);
            if error > tolerance {
                rows.push(format!(
                    "{:<15} {:<28} {:<9} {:<12} {:>16} {:>16} {:>8.2}",
                    case.model,
                    case.point(),
                    case.precision.id(),
                    what,
                    expected,
                    got,
                    100.0 * error
                ));
            }
        }
    }
    assert!(
        rows.is_empty(),
        "{} of {} cases deviate from PyTorch {} (params exact, FLOPs {} %, saved {} %):\n\
         {:<15} {:<28} {:<9} {:<12} {:>16} {:>16} {:>8}\n{}",
        rows.len(),
        fixture.cases.len(),
        fixture.torch,
        100.0 * FLOPS_TOLERANCE,
        100.0 * SAVED_TOLERANCE,
        "model",
        "point",
        "precision",
        "quantity",
        "pytorch",
        "rust",
        "error %",
        rows.join("\n")
    );
}

#[test]
fn pytorch_counts_hybridsn_on_indian_pines_at_5122176_parameters() {
    let fixture = load();
    let cases: Vec<&Case> = fixture
        .cases
        .iter()
        .filter(|c| {
            let o = &c.options;
            c.model == "hybridsn" && (o.bands, o.patch, o.classes) == (30, 25, 16)
        })
        .collect();
    assert!(!cases.is_empty(), "no HybridSN B=30 s=25 C=16 case");
    assert!(cases.iter().all(|c| c.params == 5_122_176));
}

#[test]
fn every_zoo_model_has_fixture_cases_in_both_precisions() {
    let fixture = load();
    let missing: Vec<String> = hsi_gpu_core::zoo::zoo_ids()
        .into_iter()
        .flat_map(|id| [Precision::Fp32, Precision::AmpBf16].map(move |p| (id, p)))
        .filter(|(id, p)| {
            !fixture
                .cases
                .iter()
                .any(|c| c.model == *id && c.precision == *p)
        })
        .map(|(id, p)| format!("{id} ({})", p.id()))
        .collect();
    assert!(
        missing.is_empty(),
        "no PyTorch fixture for {}; run `python3 tools/validate_zoo.py --model <id>`",
        missing.join(", ")
    );
}
