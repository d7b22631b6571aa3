//! The zoo's models in the reader's language: a network's own name (HybridSN, SSFTT)
//! stays as it is; a name that describes the model is translated.

use hsi_gpu_core::zoo::ZooEntry;

use crate::Lang;

/// Chinese names of the zoo entries whose English name describes them, by id.
const DESCRIBED: [(&str, &str); 8] = [
    ("hu1d", "一维 CNN（Hu 2015）"),
    ("hamida3d", "三维 CNN（Hamida 2018）"),
    ("unet", "U-Net 分割网络（整幅场景）"),
    ("unmixing_ae", "解混自编码器（Palsson 2018）"),
    ("segformer", "SegFormer-B0 分割网络（Xie 2021）"),
    ("vit", "ViT 高光谱基础模型"),
    ("mae_vit", "MAE 预训练，ViT（HyperSIGMA）"),
    ("mae_spectralgpt", "MAE 预训练，三维 token（SpectralGPT）"),
];

/// `entry`'s name in `lang`.
pub fn zoo_name(entry: &ZooEntry, lang: Lang) -> &'static str {
    match lang {
        Lang::En => entry.name,
        Lang::Zh => DESCRIBED
            .iter()
            .find(|(id, _)| *id == entry.id)
            .map_or(entry.name, |(_, zh)| zh),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hsi_gpu_core::zoo::{zoo_entry, ZOO};

    #[test]
    fn every_name_that_describes_a_model_has_its_chinese() {
        for (id, zh) in DESCRIBED {
            assert!(zoo_entry(id).is_some(), "{id} is not in the zoo");
            assert!(!zh.is_ascii(), "{zh}");
        }
        for entry in ZOO {
            // A lower-case English word ("segmenter", "model") describes the model.
            let describes = entry
                .name
                .split([' ', ',', '(', ')'])
                .any(|w| w.len() > 2 && w.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
            if describes {
                assert_ne!(zoo_name(entry, Lang::Zh), entry.name);
            }
            assert_eq!(zoo_name(entry, Lang::En), entry.name);
        }
    }
}
