//! The transformer presets (SSFTT, SpectralFormer, ViT): parameter counts against
//! closed-form counts written from the reference code, published totals, the PyTorch
//! fixture, and clear errors for impossible geometry.

use hsi_gpu_core::analysis::analyze;
use hsi_gpu_core::scenario::{Precision, VitSize, MAX_BANDS, MAX_PATCH};
use hsi_gpu_core::zoo::{zoo_entry, ZooOptions};
use hsi_gpu_core::FieldError;

fn build(id: &str, o: &ZooOptions) -> Result<hsi_gpu_core::graph::ModelSpec, FieldError> {
    (zoo_entry(id).expect("registered").build)(o)
}

fn params(id: &str, o: &ZooOptions) -> u64 {
    let spec = build(id, o).expect("valid options");
    analyze(&spec, 1, Precision::Fp32)
        .expect("analyzable")
        .params
}

/// Parameters of one pre-norm block: 2 LayerNorms, qkv (bias optional), output
/// projection, MLP dim -> hidden -> dim.
fn block_params(dim: u64, inner: u64, qkv_bias: bool, hidden: u64) -> u64 {
    let norms = 2 * 2 * dim;
    let qkv = dim * 3 * inner + if qkv_bias { 3 * inner } else { 0 };
    let out = inner * dim + dim;
    let mlp = dim * hidden + hidden + hidden * dim + dim;
    norms + qkv + out + mlp
}

/// SSFTTnet's parameters, module by module.
fn ssftt_params(bands: u64, classes: u64, dim: u64) -> u64 {
    let conv3d = 8 * 27 + 8 + 2 * 8;
    let conv2d = 8 * (bands - 2) * 64 * 9 + 64 + 2 * 64;
    let tokenizer = 4 * 64 + 64 * dim;
    let embeddings = dim + 5 * dim;
    conv3d
        + conv2d
        + tokenizer
        + embeddings
        + block_params(dim, dim, true, 8)
        + dim * classes
        + classes
}

/// SpectralFormer (CAF) parameters, module by module.
fn spectralformer_params(bands: u64, patch: u64, classes: u64, dim: u64) -> u64 {
    let tokens = bands + 1;
    let embedding = patch * patch * 3 * dim + dim;
    let embeddings = dim + tokens * dim;
    let blocks = 5 * block_params(dim, 4 * 16, false, 8);
    let caf = 3 * (tokens * tokens * 2 + tokens);
    let head = 2 * dim + dim * classes + classes;
    embedding + embeddings + blocks + caf + head
}

fn vit_params(bands: u64, patch: u64, classes: u64, dim: u64, depth: u64) -> u64 {
    vit_params_mlp(bands, patch, classes, dim, depth, 4 * dim)
}

fn vit_params_mlp(bands: u64, patch: u64, classes: u64, dim: u64, depth: u64, mlp: u64) -> u64 {
    let tokens = (patch / 8).pow(2) + 1;
    let embed = bands * 64 * dim + dim;
    let embeddings = dim + tokens * dim;
    let blocks = depth * block_params(dim, dim, true, mlp);
    embed + embeddings + blocks + 2 * dim + dim * classes + classes
}

#[test]
fn ssftt_matches_the_reference_module_by_module_and_the_paper() {
    // Indian Pines: 30 PCA components, 13 x 13, 16 classes; the paper reports 153,224.
    assert_eq!(params("ssftt", &ZooOptions::new(30, 13, 16)), 153_224);
    assert_eq!(ssftt_params(30, 16, 64), 153_224);
    for (bands, patch, classes, width) in
        [(15, 9, 9, None), (40, 7, 5, Some(32)), (3, 5, 2, Some(8))]
    {
        let o = ZooOptions {
            width,
            ..ZooOptions::new(bands, patch, classes)
        };
        let dim = width.map_or(64, u64::from);
        assert_eq!(
            params("ssftt", &o),
            ssftt_params(bands.into(), classes.into(), dim),
            "{o:?}"
        );
    }
}

#[test]
fn spectralformer_matches_the_reference_module_by_module_and_the_paper() {
    // Indian Pines patch-wise: 200 bands, 7 x 7, 16 classes: 355,577 in facts.md.
    assert_eq!(
        params("spectralformer", &ZooOptions::new(200, 7, 16)),
        355_577
    );
    assert_eq!(spectralformer_params(200, 7, 16, 64), 355_577);
    for (bands, patch, classes, width) in [(103, 5, 9, None), (48, 1, 5, Some(32)), (1, 1, 1, None)]
    {
        let o = ZooOptions {
            width,
            ..ZooOptions::new(bands, patch, classes)
        };
        let dim = width.map_or(64, u64::from);
        assert_eq!(
            params("spectralformer", &o),
            spectralformer_params(bands.into(), patch.into(), classes.into(), dim),
            "{o:?}"
        );
    }
}

#[test]
fn vit_sizes_span_about_22m_to_1_billion_parameters() {
    let sizes = [
        (VitSize::Small, 384, 12, 1536, 21e6, 23e6),
        (VitSize::Base, 768, 12, 3072, 85e6, 88e6),
        (VitSize::Large, 1024, 24, 4096, 300e6, 310e6),
        (VitSize::Huge, 1280, 32, 5120, 625e6, 640e6),
        // ViT-g/14 has 1,011 M (Zhai et al. 2022, Table 2) with its 14 x 14 RGB embedding.
        (VitSize::Giant, 1408, 40, 6144, 1.0e9, 1.02e9),
    ];
    for (size, dim, depth, mlp, low, high) in sizes {
        // A 3-band 32 x 32 tile keeps the embedding small, as for RGB ViTs.
        let o = ZooOptions {
            size: Some(size),
            ..ZooOptions::new(3, 32, 10)
        };
        let count = params("vit", &o);
        assert_eq!(
            count,
            vit_params_mlp(3, 32, 10, dim, depth, mlp),
            "{size:?}"
        );
        assert!((low..=high).contains(&(count as f64)), "{size:?}: {count}");
    }
    // The PyTorch mirror, tools/torch_zoo Vit(3, 32, 10, "giant"), counts 1,010,321,034.
    let giant = ZooOptions {
        size: Some(VitSize::Giant),
        ..ZooOptions::new(3, 32, 10)
    };
    assert_eq!(params("vit", &giant), 1_010_321_034);
    // The default size is base.
    assert_eq!(
        params("vit", &ZooOptions::new(3, 32, 10)),
        vit_params(3, 32, 10, 768, 12)
    );
}

#[test]
fn vit_parameter_counts_equal_pytorch_and_the_closed_form() {
    let text = include_str!("fixtures/pytorch_zoo.json");
    let fixture: serde_json::Value = serde_json::from_str(text).expect("fixture is JSON");
    let cases: Vec<_> = fixture["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| c["model"] == "vit")
        .collect();
    assert!(
        cases.len() >= 4,
        "vit cases in the fixture: {}",
        cases.len()
    );
    for case in cases {
        let o = &case["options"];
        let size: VitSize = serde_json::from_value(o["size"].clone()).expect("a size");
        let (bands, patch, classes) = (
            o["bands"].as_u64().unwrap(),
            o["patch"].as_u64().unwrap(),
            o["classes"].as_u64().unwrap(),
        );
        let opts = ZooOptions {
            size: Some(size),
            ..ZooOptions::new(bands as u32, patch as u32, classes as u32)
        };
        let shape = hsi_gpu_core::zoo::vit::shape(size);
        let torch = case["params"].as_u64().unwrap();
        assert_eq!(params("vit", &opts), torch, "{opts:?}");
        assert_eq!(
            vit_params(bands, patch, classes, shape.dim, shape.depth),
            torch
        );
    }
}

#[test]
fn token_counts_follow_the_geometry() {
    let tokens = |id: &str, o: &ZooOptions| {
        let spec = build(id, o).unwrap();
        let analysis = analyze(&spec, 1, Precision::Fp32).unwrap();
        let layer = analysis
            .layers
            .iter()
            .find(|l| l.name == "pos_embedding")
            .expect("a position embedding");
        layer.output_shape.clone()
    };
    // SSFTT: 4 tokens + class token, width dim.
    assert_eq!(tokens("ssftt", &ZooOptions::new(30, 13, 16)), vec![5, 64]);
    // SpectralFormer: one token per band + class token.
    assert_eq!(
        tokens("spectralformer", &ZooOptions::new(200, 7, 16)),
        vec![201, 64]
    );
    // ViT: (s/8)^2 patches + class token.
    let o = ZooOptions {
        size: Some(VitSize::Small),
        ..ZooOptions::new(100, 64, 16)
    };
    assert_eq!(tokens("vit", &o), vec![65, 384]);
}

#[test]
fn every_default_patch_builds_and_ends_in_class_scores() {
    for id in ["ssftt", "spectralformer", "vit"] {
        let entry = zoo_entry(id).unwrap();
        let spec = (entry.build)(&ZooOptions::new(30, entry.default_patch, 7)).unwrap();
        let analysis = analyze(&spec, 2, Precision::AmpBf16).unwrap();
        assert_eq!(analysis.output_shape, vec![7], "{id}");
        assert!(
            analysis.saved_bytes > 0.0 && analysis.fwd_flops > 0.0,
            "{id}"
        );
    }
}

fn error_field(id: &str, o: ZooOptions) -> String {
    build(id, &o).expect_err("invalid options").field
}

#[test]
fn impossible_geometry_and_options_name_the_field() {
    assert_eq!(error_field("ssftt", ZooOptions::new(30, 4, 16)), "patch");
    assert_eq!(error_field("ssftt", ZooOptions::new(2, 13, 16)), "bands");
    assert_eq!(
        error_field("spectralformer", ZooOptions::new(0, 7, 16)),
        "bands"
    );
    assert_eq!(
        error_field("spectralformer", ZooOptions::new(200, 0, 16)),
        "patch"
    );
    assert_eq!(error_field("vit", ZooOptions::new(30, 60, 16)), "patch");
    assert_eq!(error_field("vit", ZooOptions::new(30, 0, 16)), "patch");
    assert_eq!(error_field("ssftt", ZooOptions::new(30, 13, 0)), "classes");
    let width = |w| ZooOptions {
        width: Some(w),
        ..ZooOptions::new(30, 13, 16)
    };
    assert_eq!(error_field("ssftt", width(60)), "model.width"); // not a multiple of 8 heads
    assert_eq!(error_field("spectralformer", width(0)), "model.width");
    assert_eq!(
        error_field(
            "vit",
            ZooOptions {
                width: Some(64),
                ..ZooOptions::new(30, 64, 16)
            }
        ),
        "model.width"
    );
    let sized = ZooOptions {
        size: Some(VitSize::Large),
        ..ZooOptions::new(30, 13, 16)
    };
    let err = build("ssftt", &sized).unwrap_err();
    assert_eq!(
        (err.field.as_str(), err.value.as_str()),
        ("model.size", "large")
    );
    assert_eq!(error_field("spectralformer", sized), "model.size");
    // The error says what is allowed.
    let err = build("vit", &ZooOptions::new(30, 60, 16)).unwrap_err();
    assert_eq!(err.value, "60");
    assert!(err.allowed.contains("multiple of 8"), "{}", err.allowed);
}

#[test]
fn geometries_up_to_the_limits_build_and_analyze_or_error_without_panicking() {
    for id in ["ssftt", "spectralformer", "vit"] {
        for bands in [0, 1, 2, 3, 5, MAX_BANDS] {
            for patch in [0, 1, 3, 4, 5, 8, 9, 16, MAX_PATCH] {
                if let Ok(spec) = build(id, &ZooOptions::new(bands, patch, 3)) {
                    let analysis = analyze(&spec, 3, Precision::Fp32);
                    assert!(analysis.is_ok(), "{id} B={bands} s={patch}: {analysis:?}");
                }
            }
        }
    }
}
