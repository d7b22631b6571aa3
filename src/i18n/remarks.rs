//! The core's remarks in the reader's language: measured terms and captions, notes on a
//! measurement comparison, warnings on an estimate.

use hsi_gpu_core::format::count;

use hsi_gpu_core::zoo::zoo_entry;

use super::compare::C;
use super::{optimizer_name, precision_name, zoo_name, Lang, T};

/// Label of a predicted-versus-measured term (`measurement::Term::name`).
pub fn measured_term_label(name: &str, lang: Lang) -> String {
    let label = match (name, lang) {
        ("peak_allocated_bytes", Lang::En) => "Peak allocated by PyTorch's allocator",
        ("peak_allocated_bytes", Lang::Zh) => "PyTorch 分配器的已分配峰值",
        ("peak_reserved_bytes", Lang::En) => "Peak reserved by PyTorch's allocator",
        ("peak_reserved_bytes", Lang::Zh) => "PyTorch 分配器的保留峰值",
        ("context_bytes", Lang::En) => "CUDA context and libraries",
        ("context_bytes", Lang::Zh) => "CUDA 上下文与库",
        ("device_total_bytes", Lang::En) => "Device total (as nvidia-smi shows)",
        ("device_total_bytes", Lang::Zh) => "设备总占用（nvidia-smi 所示）",
        ("step_time_s", Lang::En) => "Step time (median)",
        ("step_time_s", Lang::Zh) => "单步时间（中位数）",
        ("host_step_s", Lang::En) => "Host time to issue a step (median)",
        ("host_step_s", Lang::Zh) => "主机下发一步的时间（中位数）",
        ("max_batch", Lang::En) => "Largest batch before out of memory",
        ("max_batch", Lang::Zh) => "显存溢出前的最大批大小",
        _ => name,
    };
    label.into()
}

/// Caption of one measurement's comparison.
pub fn measured_caption(
    lang: Lang,
    source: &str,
    device: &str,
    batch: u32,
    model: &str,
    gpu: &str,
) -> String {
    match lang {
        Lang::En => format!(
            "{source}: measured on {device} at batch {batch}; estimated for {model} on {gpu}"
        ),
        Lang::Zh => {
            format!("{source}：在 {device} 上实测，批大小 {batch}；按 {gpu} 上的 {model} 估算")
        }
    }
}

/// Why a comparison may not set like beside like (`measurement::Note`), with the page's
/// names for settings and models where the core's sentence has their ids.
pub fn note_text(note: &hsi_gpu_core::measurement::Note, lang: Lang) -> String {
    use hsi_gpu_core::measurement::{Note, Setting};
    let model = |id: &str| zoo_entry(id).map_or(id.to_string(), |e| zoo_name(e, lang).into());
    match (note, lang) {
        (
            Note::Setting {
                field,
                measured,
                scenario,
            },
            _,
        ) => {
            let label = match *field {
                "bands" => T::Bands,
                "patch" => T::Patch,
                "classes" => T::Classes,
                "precision" => T::Precision,
                "optimizer" => T::Optimizer,
                "checkpointing" => T::Checkpointing,
                _ => T::CudnnBenchmark,
            }
            .get(lang);
            let value = |setting: &Setting| match *setting {
                Setting::Count(n) => n.to_string(),
                Setting::Precision(p) => precision_name(p, lang).into(),
                Setting::Optimizer(o) => optimizer_name(o, lang).into(),
                Setting::Switch(on) => if on { C::Yes } else { C::No }.get(lang).into(),
            };
            let (measured, scenario) = (value(measured), value(scenario));
            match lang {
                Lang::En => format!(
                    "{label}: measured {measured}, the scenario has {scenario}; estimating {measured}"
                ),
                Lang::Zh => format!("实测的{label}为 {measured}，场景为 {scenario}：按 {measured} 估算"),
            }
        }
        (Note::OtherModel { measured, scenario }, Lang::En) => format!(
            "measured model {}, the scenario's is {}: the figures may not compare",
            model(measured),
            model(scenario)
        ),
        (Note::OtherModel { measured, scenario }, Lang::Zh) => format!(
            "实测模型为 {}，场景模型为 {}：数字可能不可比",
            model(measured),
            model(scenario)
        ),
        (_, Lang::En) => note.to_string(),
        (Note::OneCard(cards), _) => format!("场景为 {cards} 张卡；测量只针对单卡，按单卡对比"),
        (Note::OtherCard { measured, scenario }, _) => {
            format!("在 {measured} 上实测，场景显卡为 {scenario}")
        }
        (Note::Synthetic, _) => "合成示例：虚构数字，并非实测".into(),
        (Note::DryRun, _) => "CPU 试运行：没有 CUDA 数据，其单步时间也不代表显卡".into(),
    }
}

/// A remark on an estimate (`report::Warning`).
pub fn warning_text(warning: &hsi_gpu_core::report::Warning, lang: Lang) -> String {
    use hsi_gpu_core::report::Warning;
    let Lang::Zh = lang else {
        return match warning {
            // The page's words for the field, not its JSON path (the CLI's sentence).
            Warning::PriceUnknown { gpu } => format!(
                "no price known for {gpu}: enter the card price under Assumptions (the cost figures that need it are not meaningful until then)"
            ),
            _ => warning.to_string(),
        };
    };
    match warning {
        Warning::NoTf32 { gpu } => format!("{gpu} 没有 TF32 张量核心：tf32 按 FP32 速率估算"),
        Warning::NoBf16 { gpu } => {
            format!("{gpu} 不支持 BF16：bf16 为模拟执行，最多按 FP32 速率估算")
        }
        Warning::UnknownDataset { id } => format!("未知数据集 {id}：未估算每轮时间"),
        Warning::PriceUnknown { gpu } => {
            format!(
                "{gpu} 价格未知：请在“假设”中输入显卡单价（在此之前需要价格的成本数字没有意义）"
            )
        }
        Warning::LinkReplaced {
            gpu,
            nvswitch: true,
        } => {
            format!("{gpu} 为 SXM 模组，经 NVSwitch 互连：按 NVSwitch 估算")
        }
        Warning::LinkReplaced { gpu, .. } => {
            format!("{gpu} 无法使用所选的卡间连接：按 PCIe 估算")
        }
        Warning::BatchOverEpoch { batch, samples } => {
            let (batch, samples) = (count(u64::from(*batch)), count(*samples));
            format!("批大小 {batch} 超过每卡每轮的 {samples} 个训练样本：每轮只有一个不满的批次")
        }
        Warning::EccIgnored { gpu } => format!("{gpu} 没有可开启的 ECC：ECC 设置不起作用"),
        Warning::BandsOverDataset {
            bands,
            dataset,
            raw,
            used,
        } => format!(
            "{dataset} 只有 {raw} 个波段（常规剔除后 {used} 个）：仍按所填的 {bands} 个估算"
        ),
        Warning::PatchOverScene {
            patch,
            dataset,
            height,
            width,
        } => format!("{patch} px 的图块大于 {dataset} 场景（{height} × {width} px）：仍按所填估算"),
        Warning::RecurrentReserve => {
            "cuDNN 循环层的显存与速度按一个 GRU 拟合（H200 上显存为本估算的 0.9–1.1 倍），其他循环层未经检验"
                .into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measurement_notes_and_terms_are_worded_in_both_languages() {
        use hsi_gpu_core::measurement::{Note, Setting};
        let notes = [
            Note::OneCard(4),
            Note::Setting {
                field: "bands",
                measured: Setting::Count(60),
                scenario: Setting::Count(30),
            },
            Note::OtherModel {
                measured: "ssrn".into(),
                scenario: "hybridsn".into(),
            },
            Note::OtherCard {
                measured: "NVIDIA A100".into(),
                scenario: "RTX A5500".into(),
            },
            Note::Synthetic,
            Note::DryRun,
        ];
        for note in &notes {
            assert_ne!(note_text(note, Lang::Zh), note_text(note, Lang::En));
        }
        assert_eq!(note_text(&notes[0], Lang::En), notes[0].to_string());
        assert!(note_text(&notes[1], Lang::Zh).contains(T::Bands.get(Lang::Zh)));
        assert!(note_text(&notes[1], Lang::En).starts_with("Spectral bands: measured 60,"));
    }

    /// The core's notes carry ids (`torch_default`, `mou_rnn`, `true`); the page names them.
    #[test]
    fn measurement_notes_name_settings_and_models_not_their_ids() {
        use hsi_gpu_core::measurement::{Note, Setting};
        use hsi_gpu_core::scenario::Precision;
        let precision = Note::Setting {
            field: "precision",
            measured: Setting::Precision(Precision::TorchDefault),
            scenario: Setting::Precision(Precision::AmpBf16),
        };
        let benchmark = Note::Setting {
            field: "cudnn_benchmark",
            measured: Setting::Switch(true),
            scenario: Setting::Switch(false),
        };
        let model = Note::OtherModel {
            measured: "mou_rnn".into(),
            scenario: "unmixing_ae".into(),
        };
        assert!(
            precision.to_string().contains("torch_default"),
            "the CLI keeps ids"
        );
        let said = |note: &Note, lang| note_text(note, lang);
        assert_eq!(
            said(&precision, Lang::En),
            "Precision: measured PyTorch default (TF32 conv), the scenario has AMP BF16; \
             estimating PyTorch default (TF32 conv)"
        );
        assert_eq!(
            said(&precision, Lang::Zh),
            "实测的精度为 PyTorch 默认（卷积 TF32），场景为 混合精度 BF16：按 PyTorch 默认（卷积 TF32） 估算"
        );
        assert!(said(&benchmark, Lang::En)
            .starts_with("cudnn.benchmark: measured yes, the scenario has no;"));
        assert!(said(&benchmark, Lang::Zh).contains("为 是，场景为 否"));
        assert_eq!(
            said(&model, Lang::En),
            "measured model GRU RNN (Mou 2017), the scenario's is Unmixing autoencoder (Palsson 2018): the figures may not compare"
        );
        assert!(said(&model, Lang::Zh).contains("解混自编码器"));
        for lang in [Lang::En, Lang::Zh] {
            for note in [&precision, &benchmark, &model] {
                assert!(!said(note, lang).contains('_'), "{}", said(note, lang));
            }
        }
        for term in [
            "peak_allocated_bytes",
            "peak_reserved_bytes",
            "context_bytes",
            "device_total_bytes",
            "step_time_s",
            "host_step_s",
            "max_batch",
        ] {
            let (en, zh) = (
                measured_term_label(term, Lang::En),
                measured_term_label(term, Lang::Zh),
            );
            assert!(en != term && zh != term && en != zh, "{term}");
        }
    }

    #[test]
    fn estimate_warnings_are_worded_in_both_languages() {
        use hsi_gpu_core::report::Warning;
        let gpu = "V100 PCIe 32 GB".to_string();
        let warnings = [
            Warning::NoTf32 { gpu: gpu.clone() },
            Warning::NoBf16 { gpu: gpu.clone() },
            Warning::UnknownDataset { id: "mine".into() },
            Warning::PriceUnknown { gpu: gpu.clone() },
            Warning::RecurrentReserve,
            Warning::LinkReplaced {
                gpu: gpu.clone(),
                nvswitch: true,
            },
            Warning::LinkReplaced {
                gpu,
                nvswitch: false,
            },
            Warning::BatchOverEpoch {
                batch: 8192,
                samples: 1025,
            },
            Warning::EccIgnored {
                gpu: "RTX 4090".into(),
            },
            Warning::BandsOverDataset {
                bands: 300,
                dataset: "Indian Pines".into(),
                raw: 224,
                used: 200,
            },
            Warning::PatchOverScene {
                patch: 200,
                dataset: "Indian Pines".into(),
                height: 145,
                width: 145,
            },
        ];
        // Both languages give the GRU's measured factors (core/tests/measured_h200_memory.rs).
        assert!(Warning::RecurrentReserve.to_string().contains("0.9-1.1x"));
        assert!(warning_text(&Warning::RecurrentReserve, Lang::Zh).contains("0.9–1.1 倍"));
        for w in &warnings {
            let en = warning_text(w, Lang::En);
            let zh = warning_text(w, Lang::Zh);
            // The CLI's sentence, but in the page's words for a field (no JSON path).
            if matches!(w, Warning::PriceUnknown { .. }) {
                assert!(w.to_string().contains("cost.card_price_usd"));
            } else {
                assert_eq!(en, w.to_string());
            }
            if let Warning::BatchOverEpoch { .. } = w {
                // Digits grouped, as in every figure.
                assert!(en.contains("8,192") && en.contains("1,025"), "{en}");
                assert!(zh.contains("8,192"), "{zh}");
            }
            for text in [&en, &zh] {
                assert!(!text.contains('_'), "{text}");
            }
            assert_ne!(zh, w.to_string());
            assert!(!zh.is_ascii(), "{zh}");
        }
    }
}
