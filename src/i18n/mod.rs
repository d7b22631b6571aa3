//! English / 中文 strings of the page and the command line (crate `hsi-gpu-i18n`). Every
//! key carries both texts, so a string cannot be added in one language only. Sentences
//! with figures are functions taking pre-formatted figures. One file per kind: `strings`
//! (the UI's fixed texts), `names` (the Scenario's values and fields), `sentences` (texts
//! with figures), `problems` (the core's field and import errors), `remarks` (the core's
//! notes and warnings), `whatifs` (the levers, inference and the article), `thesis_map`
//! (the map across model sizes), `compare` (the comparison), `zoo_names` (the zoo's models).

/// Declares a string enum whose keys each carry both texts, e.g.
/// `texts! { enum T; Title => "HSI GPU Planner", "高光谱 GPU 规划器"; }`, read with
/// `T::Title.get(lang)`; `T::ALL` lists the keys for the tests.
#[macro_export]
macro_rules! texts {
    ($(#[$meta:meta])* enum $name:ident; $($key:ident => $en:literal, $zh:literal;)*) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name { $($key),* }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$key),*];

            /// The text in `lang`: a table lookup (data), not a match per key (code).
            pub fn get(self, lang: $crate::Lang) -> &'static str {
                const TEXTS: &[[&str; 2]] = &[$([$en, $zh]),*];
                TEXTS[self as usize][lang as usize]
            }
        }
    };
}
pub mod compare;
mod limits;
mod names;
pub mod problems;
mod remarks;
mod sentences;
mod step_labels;
mod strings;
pub mod summary;
pub mod thesis_map;
mod verdict;
pub mod whatifs;
mod zoo_names;

pub use names::*;
pub use remarks::*;
pub use sentences::*;
pub use strings::T;
pub use verdict::*;
pub use zoo_names::zoo_name;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    /// Between a label and its value: Chinese takes the full-width colon.
    pub fn colon(self) -> &'static str {
        match self {
            Lang::En => ": ",
            Lang::Zh => "：",
        }
    }

    /// A list's separator: full-width in Chinese.
    pub fn comma(self) -> &'static str {
        match self {
            Lang::En => ", ",
            Lang::Zh => "，",
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }

    /// Value for `<html lang>`.
    pub fn html_lang(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh-CN",
        }
    }

    pub fn from_code(code: &str) -> Option<Lang> {
        match code {
            "en" => Some(Lang::En),
            "zh" => Some(Lang::Zh),
            _ => None,
        }
    }

    /// From `navigator.language` ("zh-CN", "zh-TW", "en-US", ...): Chinese for any zh-*.
    pub fn from_browser(tag: &str) -> Lang {
        if tag.to_ascii_lowercase().starts_with("zh") {
            Lang::Zh
        } else {
            Lang::En
        }
    }

    pub fn other(self) -> Lang {
        match self {
            Lang::En => Lang::Zh,
            Lang::Zh => Lang::En,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browser_language_picks_chinese_for_any_zh_tag() {
        assert_eq!(Lang::from_browser("zh-CN"), Lang::Zh);
        assert_eq!(Lang::from_browser("zh-Hant-TW"), Lang::Zh);
        assert_eq!(Lang::from_browser("en-GB"), Lang::En);
        assert_eq!(Lang::from_browser(""), Lang::En);
        for lang in [Lang::En, Lang::Zh] {
            assert_eq!(Lang::from_code(lang.code()), Some(lang));
            assert_eq!(lang.other().other(), lang);
        }
    }
}
