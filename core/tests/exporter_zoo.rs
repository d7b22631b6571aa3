//! The PyTorch exporter (tools/export_model.py) against the model zoo. The fixtures in
//! tests/fixtures/exported/ are what the exporter wrote for each zoo model's PyTorch
//! version (tools/torch_zoo/) and for a torchvision-style ResNet-18
//! (tools/samples/example_models.py); regenerate them with
//! `python3 tools/export_model.py --fixtures`.
//!
//! The fixtures in tests/fixtures/families/ are common torchvision and timm architectures as the
//! exporter writes them, with what PyTorch measures for them on the CPU (torch's
//! parameter count, FLOPs and saved-for-backward bytes, fp32 and emulated CUDA bf16
//! autocast), written by `tools/.venv/bin/python tools/export_coverage.py --fixtures`;
//! together they use every op added for these architectures (activations, layer scale,
//! stochastic depth, slices, ceil-mode pools, linear upsampling, windowed attention,
//! single-input concat).

use std::path::{Path, PathBuf};

use hsi_gpu_core::analysis::analyze;
use hsi_gpu_core::graph::{ModelSpec, Op};
use hsi_gpu_core::scenario::{ModelChoice, Precision, VitSize};
use hsi_gpu_core::zoo::{zoo_entry, ZooOptions};
use hsi_gpu_core::{estimate, Scenario};
use serde::Deserialize;

#[derive(Deserialize)]
struct Source {
    /// Zoo id for zoo models; absent for other models.
    zoo: Option<String>,
    bands: u32,
    patch: u32,
    classes: u32,
    #[serde(default)]
    width: Option<u32>,
    #[serde(default)]
    size: Option<VitSize>,
}

/// One training step of the PyTorch model measured on the CPU (tools/validate_zoo.py's
/// method: flop counter, saved-tensor hooks).
#[derive(Deserialize)]
struct TorchMeasured {
    batch: u64,
    precision: Precision,
    fwd_flops: f64,
    bwd_flops: f64,
    saved_bytes: f64,
}

#[derive(Deserialize)]
struct Fixture {
    source: Source,
    /// Trainable parameters as torch counts them.
    torch_params: u64,
    unsupported: Vec<serde_json::Value>,
    params_not_represented: Vec<String>,
    warnings: Vec<String>,
    #[serde(default)]
    torch_measured: Vec<TorchMeasured>,
    spec: ModelSpec,
}

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/exported")
}

fn load(path: &Path) -> Fixture {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn zoo_fixtures() -> Vec<(String, Fixture)> {
    let mut fixtures: Vec<(String, Fixture)> = std::fs::read_dir(fixture_dir())
        .expect("fixture directory exists")
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.starts_with("zoo_") && name.ends_with(".json")
        })
        .map(|path| (path.display().to_string(), load(&path)))
        .collect();
    fixtures.sort_by(|a, b| a.0.cmp(&b.0));
    fixtures
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn exported_zoo_models_match_the_zoo_builders() {
    let fixtures = zoo_fixtures();
    assert!(
        fixtures.len() >= 3,
        "expected exported zoo models, found {}",
        fixtures.len()
    );
    for (path, f) in &fixtures {
        assert!(f.unsupported.is_empty(), "{path}: {:?}", f.unsupported);
        assert!(f.params_not_represented.is_empty(), "{path}");
        assert!(f.warnings.is_empty(), "{path}: {:?}", f.warnings);
        let id = f
            .source
            .zoo
            .as_deref()
            .expect("zoo fixtures name their zoo id");
        let entry = zoo_entry(id).unwrap_or_else(|| panic!("{path}: {id} is not in the zoo"));
        let zoo_spec = (entry.build)(&ZooOptions {
            bands: f.source.bands,
            patch: f.source.patch,
            classes: f.source.classes,
            width: f.source.width,
            size: f.source.size,
        })
        .unwrap_or_else(|e| panic!("{path}: zoo build: {e}"));
        for precision in [Precision::Fp32, Precision::AmpBf16] {
            for batch in [1, 8] {
                let ours = analyze(&zoo_spec, batch, precision).expect("zoo spec analyses");
                let exported = analyze(&f.spec, batch, precision)
                    .unwrap_or_else(|e| panic!("{path}: exported spec: {e}"));
                let case = format!("{path} {precision:?} batch {batch}");
                assert_eq!(exported.params, f.torch_params, "{case}: torch's count");
                assert_eq!(exported.params, ours.params, "{case}: params");
                assert!(
                    close(exported.fwd_flops, ours.fwd_flops),
                    "{case}: fwd FLOPs"
                );
                assert!(
                    close(exported.bwd_flops, ours.bwd_flops),
                    "{case}: bwd FLOPs"
                );
                assert!(
                    close(exported.saved_bytes, ours.saved_bytes),
                    "{case}: saved bytes {} vs zoo {}",
                    exported.saved_bytes,
                    ours.saved_bytes
                );
                assert_eq!(exported.output_shape, ours.output_shape, "{case}");
            }
        }
    }
}

/// The ResNet-18 exported from its Python class, and from a torch.export.save file.
const RESNET_FIXTURES: [&str; 2] = ["resnet18.json", "resnet18_torch_export.json"];

/// Each layer's op and the positions of the layers it reads (a torch.export graph has no
/// module names, so its layers are named after the ATen ops).
fn structure(spec: &ModelSpec) -> Vec<(Op, Vec<Option<usize>>)> {
    let position = |name: &String| {
        spec.layers
            .iter()
            .position(|l| l.name.as_ref() == Some(name))
    };
    spec.layers
        .iter()
        .map(|l| (l.op.clone(), l.from.iter().map(position).collect()))
        .collect()
}

#[test]
fn torch_export_files_give_the_same_layer_lists_as_the_python_classes() {
    // Every CNN in the zoo, and the ResNet, also went through torch.export.save/load.
    for id in ["dbda", "hamida3d", "hu1d", "hybridsn", "ssrn", "unet"] {
        let from_class = load(&fixture_dir().join(format!("zoo_{id}.json")));
        let from_file = load(&fixture_dir().join(format!("zoo_{id}_torch_export.json")));
        assert_eq!(from_file.spec.input, from_class.spec.input, "{id}");
        assert_eq!(
            structure(&from_file.spec),
            structure(&from_class.spec),
            "{id}"
        );
    }
    let [class, file] = RESNET_FIXTURES.map(|name| load(&fixture_dir().join(name)));
    assert_eq!(structure(&file.spec), structure(&class.spec));
}

#[test]
fn exported_resnet_keeps_its_residual_branches_and_estimates() {
    for name in RESNET_FIXTURES {
        resnet_keeps_its_residual_branches_and_estimates(&load(&fixture_dir().join(name)));
    }
}

fn resnet_keeps_its_residual_branches_and_estimates(f: &Fixture) {
    assert!(f.unsupported.is_empty() && f.params_not_represented.is_empty());
    let adds: Vec<_> = f
        .spec
        .layers
        .iter()
        .filter(|l| matches!(l.op, Op::Add))
        .collect();
    // ResNet-18: 4 stages x 2 basic blocks, each ending in `out += identity`.
    assert_eq!(adds.len(), 8);
    for add in &adds {
        assert_eq!(add.from.len(), 2, "{:?}", add.name);
        assert_ne!(add.from[0], add.from[1], "{:?}", add.name);
    }
    let scenario = Scenario {
        model: ModelChoice::Custom {
            spec: f.spec.clone(),
        },
        bands: f.source.bands,
        patch: f.source.patch,
        classes: f.source.classes,
        ..Scenario::default()
    };
    let report = estimate(&scenario).expect("the exported ResNet estimates");
    assert_eq!(report.params, f.torch_params);
    assert!(report.memory.total > report.memory.weights);
    assert_eq!(report.layers.last().unwrap().output_shape, vec![16]);
}

#[test]
fn exported_resnet_matches_pytorch_flops_and_saved_bytes() {
    for name in RESNET_FIXTURES {
        resnet_matches_pytorch_flops_and_saved_bytes(&load(&fixture_dir().join(name)));
    }
}

fn resnet_matches_pytorch_flops_and_saved_bytes(f: &Fixture) {
    assert!(!f.torch_measured.is_empty());
    for m in &f.torch_measured {
        let a = analyze(&f.spec, m.batch, m.precision).expect("exported ResNet analyses");
        let case = format!("{:?} batch {}", m.precision, m.batch);
        assert!(
            close(a.fwd_flops, m.fwd_flops),
            "{case}: fwd FLOPs {} vs torch {}",
            a.fwd_flops,
            m.fwd_flops
        );
        assert!(
            close(a.bwd_flops, m.bwd_flops),
            "{case}: bwd FLOPs {} vs torch {}",
            a.bwd_flops,
            m.bwd_flops
        );
        assert!(
            close(a.saved_bytes, m.saved_bytes),
            "{case}: saved bytes {} vs torch {}",
            a.saved_bytes,
            m.saved_bytes
        );
    }
}

#[derive(Deserialize)]
struct FamilyFixture {
    uses: String,
    torch_params: u64,
    torch_measured: Vec<TorchMeasured>,
    spec: ModelSpec,
}

/// The coverage test's tolerance (tools/export_coverage.py).
const TOLERANCE: f64 = 0.01;

fn within(estimated: f64, measured: f64) -> bool {
    (estimated - measured).abs() <= TOLERANCE * measured.max(1.0)
}

#[test]
fn exported_families_match_pytorch() {
    let mut checked = Vec::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/families");
    for entry in std::fs::read_dir(dir).expect("fixture directory exists") {
        let path = entry.expect("readable entry").path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let f: FamilyFixture =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(f.torch_measured.len(), 2, "{name}: fp32 and amp_bf16");
        for m in &f.torch_measured {
            let a = analyze(&f.spec, m.batch, m.precision)
                .unwrap_or_else(|e| panic!("{name} ({}): {e:?}", f.uses));
            let case = format!("{name} ({}), {:?} batch {}", f.uses, m.precision, m.batch);
            assert_eq!(a.params, f.torch_params, "{case}: parameters");
            for (what, estimated, measured) in [
                ("fwd FLOPs", a.fwd_flops, m.fwd_flops),
                ("bwd FLOPs", a.bwd_flops, m.bwd_flops),
                ("saved bytes", a.saved_bytes, m.saved_bytes),
            ] {
                assert!(
                    within(estimated, measured),
                    "{case}: {what} {estimated} vs torch {measured}"
                );
            }
        }
        checked.push(name);
    }
    assert!(
        checked.len() >= 26,
        "expected the family fixtures, found {checked:?}"
    );
}
