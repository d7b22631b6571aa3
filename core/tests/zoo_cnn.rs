//! The CNN presets (hu1d, hamida3d, hybridsn, ssrn, dbda, unet): parameter counts against
//! the papers / reference code and closed forms, output shapes, option handling and
//! field errors for impossible geometry. FLOPs and saved bytes are checked against
//! PyTorch in `pytorch_fixtures.rs`.

use hsi_gpu_core::analysis::analyze;
use hsi_gpu_core::graph::ModelSpec;
use hsi_gpu_core::scenario::{FieldError, Precision, VitSize, MAX_BANDS, MAX_PATCH};
use hsi_gpu_core::zoo::{zoo_entry, ZooOptions};

const CNN_IDS: [&str; 6] = ["hu1d", "hamida3d", "hybridsn", "ssrn", "dbda", "unet"];

fn with_width(o: ZooOptions, width: u32) -> ZooOptions {
    ZooOptions {
        width: Some(width),
        ..o
    }
}

fn build(id: &str, o: &ZooOptions) -> Result<ModelSpec, FieldError> {
    (zoo_entry(id)
        .unwrap_or_else(|| panic!("{id} is in the zoo"))
        .build)(o)
}

fn params(id: &str, o: &ZooOptions) -> u64 {
    let spec = build(id, o).unwrap();
    analyze(&spec, 1, Precision::Fp32).unwrap().params
}

/// Parameters of a biased convolution or linear layer.
fn dense(inputs: u64, outputs: u64) -> u64 {
    inputs * outputs + outputs
}

/// (Conv 3x3 + BN) x 2, as the U-Net's double conv.
fn double_conv(cin: u64, cout: u64) -> u64 {
    dense(cin * 9, cout) + 2 * cout + dense(cout * 9, cout) + 2 * cout
}

#[test]
fn hybridsn_has_the_papers_5122176_parameters_on_indian_pines() {
    assert_eq!(params("hybridsn", &ZooOptions::new(30, 25, 16)), 5_122_176);
}

#[test]
fn hybridsn_parameters_follow_the_layer_list() {
    for (bands, patch, classes) in [(15, 25, 9), (20, 11, 7), (13, 9, 1)] {
        let (b, s, c) = (bands as u64, patch as u64, classes as u64);
        let expected = dense(7 * 9, 8)
            + dense(8 * 5 * 9, 16)
            + dense(16 * 3 * 9, 32)
            + dense(32 * (b - 12) * 9, 64)
            + dense(64 * (s - 8) * (s - 8), 256)
            + dense(256, 128)
            + dense(128, c);
        assert_eq!(
            params("hybridsn", &ZooOptions::new(bands, patch, classes)),
            expected
        );
    }
}

#[test]
fn hu1d_follows_the_papers_kernel_rules() {
    // DeepHyperX's HuEtAl on Indian Pines (200 bands, 16 classes).
    assert_eq!(params("hu1d", &ZooOptions::new(200, 1, 16)), 72_196);
    for (bands, classes, width) in [(103, 9, 20), (48, 5, 32), (1, 2, 4)] {
        let kernel = (bands as u64).div_ceil(9);
        let pool = kernel.div_ceil(5);
        let pooled = (bands as u64 - kernel + 1) / pool;
        let expected =
            dense(kernel, width) + dense(width * pooled, 100) + dense(100, classes as u64);
        let o = with_width(ZooOptions::new(bands, 1, classes), width as u32);
        assert_eq!(params("hu1d", &o), expected, "B={bands}");
    }
}

#[test]
fn hamida3d_matches_deephyperx_counts() {
    assert_eq!(params("hamida3d", &ZooOptions::new(200, 5, 16)), 45_196); // Indian Pines
    assert_eq!(params("hamida3d", &ZooOptions::new(103, 5, 9)), 35_039); // Pavia University
}

#[test]
fn dbda_is_the_reference_less_the_left_out_gammas_and_unused_conv() {
    // The reference DBDA_network_MISH has 382,347 at Indian Pines; 2 gamma scalars and
    // the 19 parameters of its never-called conv25 are left out.
    assert_eq!(
        params("dbda", &ZooOptions::new(200, 9, 16)),
        382_347 - 2 - 19
    );
}

#[test]
fn ssrn_width_scales_the_residual_kernels() {
    let narrow = params("ssrn", &with_width(ZooOptions::new(200, 7, 16), 12));
    let default = params("ssrn", &ZooOptions::new(200, 7, 16));
    assert_eq!(
        default,
        params("ssrn", &with_width(ZooOptions::new(200, 7, 16), 24))
    );
    assert!(narrow < default);
}

#[test]
fn unet_parameters_follow_the_levels() {
    for (bands, classes, width) in [(103, 9, 32), (8, 4, 8)] {
        let w = width as u64;
        let expected = double_conv(bands as u64, w)
            + double_conv(w, 2 * w)
            + double_conv(2 * w, 4 * w)
            + double_conv(4 * w, 8 * w)
            + double_conv(8 * w, 16 * w)
            + double_conv(24 * w, 8 * w)
            + double_conv(12 * w, 4 * w)
            + double_conv(6 * w, 2 * w)
            + double_conv(3 * w, w)
            + dense(w, classes as u64);
        let o = with_width(ZooOptions::new(bands, 64, classes), width);
        assert_eq!(params("unet", &o), expected);
    }
    assert_eq!(
        params("unet", &ZooOptions::new(103, 64, 9)),
        params("unet", &with_width(ZooOptions::new(103, 64, 9), 32))
    );
}

#[test]
fn defaults_build_with_the_pytorch_input_layout_and_class_outputs() {
    for id in CNN_IDS {
        let entry = zoo_entry(id).unwrap();
        let s = entry.default_patch as u64;
        let spec = (entry.build)(&ZooOptions::new(103, entry.default_patch, 9)).unwrap();
        let expected_input = match id {
            "hu1d" => vec![1, 103],
            "ssrn" | "dbda" => vec![1, s, s, 103],
            "unet" => vec![103, s, s],
            _ => vec![1, 103, s, s],
        };
        assert_eq!(spec.input, expected_input, "{id}");
        let a = analyze(&spec, 2, Precision::AmpBf16).unwrap();
        let expected_output = if id == "unet" { vec![9, s, s] } else { vec![9] };
        assert_eq!(a.output_shape, expected_output, "{id}");
        assert!(a.fwd_flops > 0.0 && a.saved_bytes > 0.0, "{id}");
    }
}

fn error(id: &str, o: ZooOptions) -> FieldError {
    build(id, &o).expect_err("invalid options")
}

#[test]
fn impossible_geometry_names_the_field_value_and_range() {
    let e = error("hybridsn", ZooOptions::new(12, 25, 16));
    assert_eq!((e.field.as_str(), e.value.as_str()), ("bands", "12"));
    assert!(e.allowed.contains("at least 13"), "{}", e.allowed);
    assert_eq!(error("hybridsn", ZooOptions::new(30, 8, 16)).field, "patch");
    assert_eq!(
        error("hybridsn", ZooOptions::new(30, 25, 0)).field,
        "classes"
    );
    let e = error("hamida3d", ZooOptions::new(200, 4, 16));
    assert_eq!((e.field.as_str(), e.value.as_str()), ("patch", "4"));
    assert!(build("hamida3d", &ZooOptions::new(200, 3, 16)).is_ok());
    assert_eq!(error("hamida3d", ZooOptions::new(2, 5, 16)).field, "bands");
    assert_eq!(error("ssrn", ZooOptions::new(6, 7, 16)).field, "bands");
    assert_eq!(error("ssrn", ZooOptions::new(200, 2, 16)).field, "patch");
    assert_eq!(error("dbda", ZooOptions::new(7, 9, 16)).field, "bands");
    let e = error("unet", ZooOptions::new(103, 100, 9));
    assert_eq!((e.field.as_str(), e.value.as_str()), ("patch", "100"));
    assert!(e.allowed.contains("multiple of 16"), "{}", e.allowed);
    assert_eq!(error("hu1d", ZooOptions::new(0, 1, 9)).field, "bands");
}

#[test]
fn options_a_model_lacks_or_out_of_range_are_errors() {
    for id in ["hamida3d", "hybridsn", "dbda"] {
        assert_eq!(
            error(id, with_width(ZooOptions::new(200, 25, 16), 8)).field,
            "model.width",
            "{id}"
        );
    }
    for id in ["hu1d", "ssrn", "unet"] {
        let e = error(id, with_width(ZooOptions::new(200, 32, 16), 0));
        assert_eq!((e.field.as_str(), e.value.as_str()), ("model.width", "0"));
    }
    for id in CNN_IDS {
        let sized = ZooOptions {
            size: Some(VitSize::Base),
            ..ZooOptions::new(200, 32, 16)
        };
        let e = error(id, sized);
        assert_eq!((e.field.as_str(), e.value.as_str()), ("model.size", "base"));
    }
}

#[test]
fn geometries_up_to_the_limits_build_and_analyze_or_error_without_panicking() {
    for id in CNN_IDS {
        for bands in [0, 1, 2, 7, 8, 13, 200, MAX_BANDS] {
            for patch in [0, 1, 2, 3, 4, 5, 9, 16, 25, 4095, MAX_PATCH] {
                for width in [None, Some(1), Some(4096)] {
                    let o = ZooOptions {
                        width,
                        ..ZooOptions::new(bands, patch, 3)
                    };
                    // Either outcome is fine; a panic fails the test.
                    if let Ok(spec) = build(id, &o) {
                        let _ = analyze(&spec, 2, Precision::AmpBf16);
                    }
                }
            }
        }
    }
}
