//! English / 中文 strings of the lever, inference and article views. Every key carries
//! both texts; sentences with figures are functions taking pre-formatted figures.

use hsi_gpu_core::levers::{Lever, Limit};
use hsi_gpu_core::market::{ChassisFit, ChassisIssue};
use hsi_gpu_core::{format, Report};

use crate::Lang;

texts! {
    /// A string of the lever, inference and article views.
    enum X;
    LeversTitle => "What would help most", "加强哪项资源收益最大";
    LeversHelp => "The scenario re-estimated with one resource improved at a time, all else equal: the article's ranking (capacity and bandwidth before compute and interconnect), computed for this workload. More capacity never speeds up a run that already fits; it raises the largest batch and patch.",
        "在其他条件不变时，每次只加强一项资源并重新估算：即文章的“边际收益排序”（容量、带宽优先于算力、互联）在当前负载下的计算结果。对已经放得下的训练，更大显存不会加快训练，只会提高最大批大小和最大空间块。";
    Lever => "Improvement", "改进";
    TimeToResult => "Time to result", "完成一次训练";
    Speedup => "Speed-up", "加速比";
    LargestBatch => "Largest batch", "最大批大小";
    LargestPatch => "Largest patch (px)", "最大空间块（像素）";
    LimitsNext => "Then limited by", "之后的瓶颈";
    Scenario => "This scenario", "当前场景";
    DoesNotFit => "does not fit", "放不下";
    NoneHelps => "No single resource gains more than 2 %: improving one alone does not pay here.", "没有任何单项资源能带来超过 2 % 的提升：此处单独加强某一项不划算。";
    InferenceTitle => "Evaluation and whole-scene prediction", "测试评估与全图预测";
    InferenceHelp => "After training, HSI papers test on every labelled pixel not used for training and then predict a class for every pixel of the scene, one patch each, without gradients, at the largest batch that fits.",
        "训练之后，高光谱论文通常在所有未参与训练的标注像素上测试，再对整幅影像的每个像素（每像素一个空间块）做无梯度预测，批大小取放得下的最大值。";
    TestPixels => "Test pixels", "测试像素";
    ScenePixels => "Scene pixels (H x W)", "整幅影像像素（H x W）";
    EvalPass => "One test pass", "一次测试";
    EvalEveryEpoch => "A test pass after every epoch", "每轮训练后各测试一次";
    ScenePrediction => "Whole-scene prediction", "全图预测";
    NoGradPeak => "No-grad memory at that batch", "该批大小下的无梯度显存";
    MaxBatchNoGrad => "Largest no-grad batch", "无梯度最大批大小";
    Deployment => "Deploying the trained model on an edge or inference card", "在边缘或推理设备上部署训练好的模型";
    Card => "Card", "设备";
    NoTrainingRun => "Training does not fit this card as set up, so these times are not compared with a training run.", "按当前设置训练放不下这张卡，因此这些时间不与训练时间比较。";
    NoScene => "The dataset is not in the catalog: no scene size, so no prediction time.", "数据集不在目录中：没有影像尺寸，无法估算预测时间。";
    ArticleTitle => "About the article", "关于原文";
    ArticleHelp => "Where the article's own figures are off. Each corrected figure is computed by this planner's core, beside the article's.",
        "原文中有几处数字有误。下面每个更正值都由本工具的核心代码计算，与原文数字并列。";
    ArticleSays => "The article says", "原文";
    SpeedupAxis => "Speed-up to a result over the scenario (×)", "相对当前场景的出结果加速比（×）";
    EnterPrice => "enter a price", "请输入价格";
    EnterRate => "enter a rate", "请输入租价";
    Ecc => "ECC on", "开启 ECC";
    EccReserved => "Taken by ECC", "ECC 占用";
    ChassisFits => "fits one workstation", "一台工作站装得下";
    ChassisTooWide => "too wide for the chassis", "机箱插槽不够";
    ChassisTooMuchPower => "needs more than one PSU", "单个电源带不动";
    ChassisNeedsServerBoard => "needs a server board (SXM)", "需要服务器主板（SXM）";
    ChassisNeedsServerAirflow => "passive: needs server airflow", "被动散热：需要服务器风道";
    ChassisOpenAirStacked => "open-air coolers stacked", "开放式散热器叠放";
    EccNone => "this card has no ECC to turn on", "这张卡没有可开启的 ECC";
    EccFree => "HBM: ECC costs nothing", "HBM：开启 ECC 没有代价";
    Computed => "Computed", "计算结果";
}

pub fn lever_name(lever: Lever, lang: Lang) -> &'static str {
    match (lever, lang) {
        (Lever::MemoryCapacity, Lang::En) => "Memory capacity",
        (Lever::MemoryCapacity, Lang::Zh) => "显存容量",
        (Lever::MemoryBandwidth, Lang::En) => "Memory bandwidth",
        (Lever::MemoryBandwidth, Lang::Zh) => "显存带宽",
        (Lever::Compute, Lang::En) => "Compute",
        (Lever::Compute, Lang::Zh) => "算力",
        (Lever::Interconnect, Lang::En) => "Interconnect (best link)",
        (Lever::Interconnect, Lang::Zh) => "互联（最佳链路）",
        (Lever::HostCpu, Lang::En) => "Host CPU",
        (Lever::HostCpu, Lang::Zh) => "主机 CPU",
        (Lever::InputPipeline, Lang::En) => "Data cube on the GPU",
        (Lever::InputPipeline, Lang::Zh) => "数据立方体放在显卡上",
    }
}

pub fn limit_name(limit: Limit, lang: Lang) -> &'static str {
    match (limit, lang) {
        (Limit::Capacity, Lang::En) => "memory capacity",
        (Limit::Capacity, Lang::Zh) => "显存容量",
        (Limit::Bandwidth, Lang::En) => "memory bandwidth",
        (Limit::Bandwidth, Lang::Zh) => "显存带宽",
        (Limit::Compute, Lang::En) => "compute",
        (Limit::Compute, Lang::Zh) => "算力",
        (Limit::Host, Lang::En) => "host CPU (dispatch, launches)",
        (Limit::Host, Lang::Zh) => "主机 CPU（调度、内核启动）",
        (Limit::KernelFloor, Lang::En) => "the least time per kernel (on the GPU)",
        (Limit::KernelFloor, Lang::Zh) => "单个内核的最短时间（GPU 上）",
        (Limit::Input, Lang::En) => "input pipeline",
        (Limit::Input, Lang::Zh) => "输入管线",
        (Limit::Interconnect, Lang::En) => "interconnect",
        (Limit::Interconnect, Lang::Zh) => "互联",
        (Limit::Offload, _) => crate::T::OptimizerOffload.get(lang),
    }
}

/// Whether N cards fit one workstation, and why not.
pub fn chassis_text(fit: &ChassisFit, lang: Lang) -> String {
    if fit.fits() {
        return X::ChassisFits.get(lang).to_string();
    }
    let sep = lang.comma();
    fit.issues
        .iter()
        .map(|issue| {
            match issue {
                ChassisIssue::TooWide => X::ChassisTooWide,
                ChassisIssue::TooMuchPower => X::ChassisTooMuchPower,
                ChassisIssue::NeedsServerBoard => X::ChassisNeedsServerBoard,
                ChassisIssue::NeedsServerAirflow => X::ChassisNeedsServerAirflow,
                ChassisIssue::OpenAirStacked => X::ChassisOpenAirStacked,
            }
            .get(lang)
        })
        .collect::<Vec<_>>()
        .join(sep)
}

/// "Compute x2 pays most: 1.55x faster."
pub fn best_lever_sentence(lang: Lang, lever: &str, speedup: Option<&str>) -> String {
    match (lang, speedup) {
        (Lang::En, Some(s)) => format!("{lever} pays most: {s} faster to a result."),
        (Lang::En, None) => {
            format!("{lever} is the smallest step that makes it fit with the headroom kept.")
        }
        (Lang::Zh, Some(s)) => format!("收益最大的是{lever}：完成训练快 {s}。"),
        (Lang::Zh, None) => format!("保留余量后让训练放得下的最小一步是{lever}。"),
    }
}

/// A lever option's name, worded as what changes so it cannot be read as its result
/// (the bar and the table give the speed-up in ×): "Memory capacity +50 %", "Best link:
/// bandwidth +96 %"; the data cube on the GPU is a switch, not an amount.
pub fn lever_label(lever: Lever, factor: f64, lang: Lang) -> String {
    let gain = format!("+{:.0} %", (factor - 1.0) * 100.0);
    match (lever, lang) {
        (Lever::InputPipeline, _) => lever_name(lever, lang).to_string(),
        (Lever::Interconnect, Lang::En) => format!("Best link: bandwidth {gain}"),
        (Lever::Interconnect, Lang::Zh) => format!("最佳链路：带宽 {gain}"),
        _ => format!("{} {gain}", lever_name(lever, lang)),
    }
}

/// "Not even 2× the memory capacity makes it fit; the largest batch is 1,362 now (1.5×:
/// 2,062, 2×: 2,762)." `steps` are the capacity levers' (factor, largest batch) pairs.
pub fn nothing_fits_sentence(lang: Lang, largest_batch: u32, steps: &[(f64, u32)]) -> String {
    let step = |(factor, batch): &(f64, u32)| {
        let batch = format::count((*batch).into());
        format!("{}{}{batch}", format::times(*factor), lang.colon())
    };
    let most = format::times(steps.iter().map(|s| s.0).fold(1.0, f64::max));
    let now = format::count(largest_batch.into());
    let steps: Vec<String> = steps.iter().map(step).collect();
    match lang {
        Lang::En => format!(
            "Not even {most} the memory capacity makes it fit; the largest batch is {now} now ({}).",
            steps.join(", ")
        ),
        Lang::Zh => format!(
            "即使显存容量加到 {most} 也放不下；当前最大批大小为 {now}（{}）。",
            steps.join("，")
        ),
    }
}

/// The best lever of a report in words; when none helps, either that no single resource
/// pays (a run that fits) or that not even the capacity levers make it fit.
pub fn best_lever_text(report: &Report, lang: Lang) -> String {
    if let Some(b) = report.best_lever {
        return best_lever_sentence(
            lang,
            &lever_label(b.lever, b.factor, lang),
            b.speedup.map(format::times).as_deref(),
        );
    }
    match report.lever_baseline {
        Some(base) if !base.fits => {
            let capacity: Vec<(f64, u32)> = report
                .levers
                .iter()
                .filter(|o| o.lever == Lever::MemoryCapacity)
                .map(|o| (o.factor, o.largest_batch))
                .collect();
            nothing_fits_sentence(lang, base.largest_batch, &capacity)
        }
        _ => X::NoneHelps.get(lang).to_string(),
    }
}

/// "Setting cudnn.benchmark = True alone makes a step 2.27× faster."
pub fn cudnn_benchmark_sentence(lang: Lang, speedup: f64) -> String {
    let s = format::times(speedup);
    match lang {
        Lang::En => format!("Setting cudnn.benchmark = True alone makes a step {s} faster."),
        Lang::Zh => format!("仅开启 cudnn.benchmark，单步即快 {s}。"),
    }
}

/// "Now limited by compute."
pub fn limit_sentence(lang: Lang, limit: &str) -> String {
    match lang {
        Lang::En => format!("This scenario is limited by {limit}."),
        Lang::Zh => format!("当前场景的瓶颈是{limit}。"),
    }
}

/// "Prediction takes 7 % of the training run's time; testing after every epoch 3.1x."
pub fn prediction_sentence(lang: Lang, prediction: &str, every_epoch: &str) -> String {
    match lang {
        Lang::En => format!(
            "Whole-scene prediction costs {prediction} of one training run; a test pass after every epoch would cost {every_epoch} of it."
        ),
        Lang::Zh => format!(
            "全图预测耗时为一次训练的 {prediction}；若每轮训练后都测试一次，则为训练时间的 {every_epoch}。"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_text_exists_in_both_languages() {
        for x in X::ALL {
            assert!(!x.get(Lang::En).is_empty(), "{x:?}");
            assert!(!x.get(Lang::Zh).is_empty(), "{x:?}");
            assert_ne!(x.get(Lang::En), x.get(Lang::Zh), "{x:?}");
        }
        for lever in Lever::ALL {
            assert_ne!(lever_name(lever, Lang::En), lever_name(lever, Lang::Zh));
        }
    }

    #[test]
    fn a_run_nothing_makes_fit_says_so_with_the_largest_batches() {
        let s = hsi_gpu_core::Scenario {
            batch_per_gpu: 8192,
            ..Default::default()
        };
        let report = hsi_gpu_core::whatifs::estimate_all(&s).unwrap();
        assert!(report.best_lever.is_none() && !report.lever_baseline.unwrap().fits);
        let batch = |o: &hsi_gpu_core::levers::LeverOutcome| format::count(o.largest_batch.into());
        let capacity: Vec<String> = report
            .levers
            .iter()
            .filter(|o| o.lever == Lever::MemoryCapacity)
            .map(batch)
            .collect();
        assert_eq!(capacity.len(), 2);
        let now = format::count(report.max_batch.into());
        for lang in [Lang::En, Lang::Zh] {
            let text = best_lever_text(&report, lang);
            assert_ne!(text, X::NoneHelps.get(lang));
            for figure in capacity.iter().chain([&now]) {
                assert!(text.contains(figure.as_str()), "{text} lacks {figure}");
            }
        }
        let en = best_lever_text(&report, Lang::En);
        assert!(
            en.starts_with("Not even 2× the memory capacity makes it fit"),
            "{en}"
        );
    }
}
