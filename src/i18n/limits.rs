//! The zoo models' least band count and patch (`core::zoo`: "at least 9 (four unpadded
//! 3x3 convolutions take 8 pixels)") in Chinese: the bound and the reason the model has it.
//! Dragging a slider below a model's limit shows it in the verdict.

/// The reasons the zoo gives for its limits on bands and patch, in Chinese.
const REASONS: [[&str; 2]; 12] = [
    [
        "the unpadded 3-D kernels of depth 7, 5 and 3 take 12 bands",
        "深度 7、5、3 的无填充三维卷积核共去掉 12 个波段",
    ],
    [
        "four unpadded 3x3 convolutions take 8 pixels",
        "四层无填充 3x3 卷积共去掉 8 个像素",
    ],
    ["the first 3x3x3 convolution", "第一层 3x3x3 卷积"],
    ["the 3x3x3 Conv3d is unpadded", "3x3x3 三维卷积无填充"],
    ["two unpadded 3x3 convolutions", "两层无填充 3x3 卷积"],
    ["one unpadded 3x3 convolution", "一层无填充 3x3 卷积"],
    [
        "the first spectral kernel spans 7 bands",
        "第一个光谱卷积核跨 7 个波段",
    ],
    [
        "the last spectral kernel spans floor((B-6)/2) bands",
        "最后一个光谱卷积核跨 floor((B-6)/2) 个波段",
    ],
    ["a spectrum to reconstruct", "须有可重建的光谱"],
    ["four 2x2 max-pools", "四次 2x2 最大池化"],
    ["the encoder's total stride", "编码器的总步幅"],
    ["the ViT patch size", "ViT 的图块大小"],
];

/// `allowed` in Chinese where it is a zoo model's limit: "at least N (why)", "a positive
/// multiple of N (why)" or "A, or at least N (why)".
pub fn limit_text(allowed: &str) -> Option<String> {
    let (bound, why) = allowed.strip_suffix(')')?.split_once(" (")?;
    let why = REASONS.iter().find(|[en, _]| *en == why)?[1];
    let bound = if let Some(n) = bound.strip_prefix("at least ") {
        format!("至少 {n}")
    } else if let Some(n) = bound.strip_prefix("a positive multiple of ") {
        format!("{n} 的正整数倍")
    } else {
        let (one, n) = bound.split_once(", or at least ")?;
        format!("{one}，或至少 {n}")
    };
    Some(format!("{bound}（{why}）"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hsi_gpu_core::scenario::{MAX_BANDS, MAX_PATCH};
    use hsi_gpu_core::zoo::{ZooOptions, ZOO};

    /// Every limit a zoo model puts on the bands or the patch the page's sliders and boxes
    /// can reach has its Chinese text.
    #[test]
    fn every_reachable_zoo_limit_reads_in_chinese() {
        let mut limits = Vec::new();
        for entry in ZOO {
            for (bands, patch) in (1..=32).flat_map(|b| (1..=72).map(move |p| (b, p))) {
                if let Err(e) = (entry.build)(&ZooOptions::new(bands, patch, 16)) {
                    assert!(bands <= MAX_BANDS && patch <= MAX_PATCH);
                    if !limits.contains(&e.allowed) {
                        limits.push(e.allowed);
                    }
                }
            }
        }
        assert!(limits.len() >= 10, "{limits:?}");
        for allowed in &limits {
            let zh = limit_text(allowed).unwrap_or_else(|| panic!("no Chinese for {allowed}"));
            assert!(zh.contains('（') && !zh.contains("at least"), "{zh}");
        }
        assert_eq!(
            limit_text("3, or at least 5 (two unpadded 3x3 convolutions)").as_deref(),
            Some("3，或至少 5（两层无填充 3x3 卷积）")
        );
        assert_eq!(
            limit_text("a positive multiple of 16 (four 2x2 max-pools)").as_deref(),
            Some("16 的正整数倍（四次 2x2 最大池化）")
        );
        // Other texts are left to the general forms.
        assert_eq!(limit_text("an integer from 1 to 1024"), None);
    }
}
