//! One description per JSON type. `json_struct!` and `json_enum!` (and `graph::Op`'s
//! `json_ops!`) take a type's fields or ids once, with each field's default and allowed
//! range, and give:
//! - the type itself;
//! - `ToJson`: written as a `serde_json::Value` (`write`), and serde's `Serialize`
//!   through it;
//! - `FromJson`: read from a `serde_json::Value`, refusing unknown fields (the error names
//!   the field path and lists the allowed fields); a missing or null field takes its
//!   default;
//! - `Check`: every range, with its field path (`perf.scaling.overlap`);
//! - `FIELDS` / `ALL`: the field names and ids, for the UI and the errors;
//! - serde's `Deserialize`, through `FromJson` (for `serde_json::from_str`).
//!
//! Read by hand rather than with serde's derived readers: those cost the web page
//! about 20 kB of its download budget (docs/development.md, "Keeping the page small").

use serde_json::{Map, Value};

use crate::problems::{FieldError, Problems};

mod read;
mod write;
pub(crate) use write::{put, put_field, put_tag, serialize_by_to_json};
pub use write::{to_pretty_text, to_text, ToJson};

/// A type read from JSON. Errors name the field path relative to the value read (an
/// empty path is the value itself); `FieldError::at` puts them under their parent.
pub trait FromJson: Sized {
    /// What a list of these is, in errors.
    const LIST: &'static str = "a list";
    fn from_json(v: &Value) -> Result<Self, FieldError>;

    /// Reads `v` over `self` (a default): a `json_struct!` reads each field in place,
    /// so nested sections are not built apart and moved (smaller wasm); other types
    /// replace `self`.
    fn read_into(&mut self, v: &Value) -> Result<(), FieldError> {
        *self = Self::from_json(v)?;
        Ok(())
    }
}

/// Range checks of a value read from JSON (or set by the page), with field paths.
pub trait Check {
    /// A plain value with no checks of its own: its field path is never built.
    const LEAF: bool = false;

    /// Records every problem of `self`, found at `path`.
    fn check(&self, _path: &str, _p: &mut Problems) {}

    /// Checks `self` as field `key` under `path`.
    fn check_field(&self, path: &str, key: &str, p: &mut Problems) {
        if !Self::LEAF {
            self.check(&join(path, key), p);
        }
    }
}

/// `path.key`, or `key` at the top.
pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.into()
    } else {
        format!("{path}.{key}")
    }
}

/// The error for a value of the wrong kind.
pub(crate) fn wrong(v: &Value, allowed: impl Into<String>) -> FieldError {
    FieldError {
        field: String::new(),
        value: to_text(v),
        allowed: allowed.into(),
    }
}

/// The object `v`, refusing fields not in `known`.
pub(crate) fn object<'a>(
    v: &'a Value,
    known: &[&str],
) -> Result<&'a Map<String, Value>, FieldError> {
    let map = v.as_object().ok_or_else(|| wrong(v, "a JSON object"))?;
    match map.iter().find(|(key, _)| !known.contains(&key.as_str())) {
        Some((key, v)) => Err(FieldError {
            field: key.clone(),
            value: format!("unknown field `{key}` = {}", to_text(v)),
            allowed: format!("a known field: {}", known.join(", ")),
        }),
        None => Ok(map),
    }
}

/// A value `read_field` reads over: `FromJson::read_into` behind a `dyn`, so that a
/// field's read is one call of the non-generic `read_field`, not a copy of it per field.
pub(crate) trait ReadInto {
    fn read_over(&mut self, v: &Value) -> Result<(), FieldError>;
}

impl<T: FromJson> ReadInto for T {
    fn read_over(&mut self, v: &Value) -> Result<(), FieldError> {
        self.read_into(v)
    }
}

/// Field `key` of `map` read over `slot`, which keeps its value when the field is
/// missing or null.
#[inline(never)]
pub(crate) fn read_field(
    map: &Map<String, Value>,
    key: &str,
    slot: &mut dyn ReadInto,
) -> Result<(), FieldError> {
    match map.get(key) {
        Some(v) if !v.is_null() => slot.read_over(v).map_err(|e| e.at(key)),
        _ => Ok(()),
    }
}

/// The fields of `v`, an object of only the fields named in `keys`, each read over its
/// slot (`slots[i]` for `keys[i]`), in order; the first error stops the read. A
/// `json_struct!`'s `read_into` is one call of it, whatever its fields.
/// A value that is not a number of the field's type (a negative or fractional count, a
/// string) is refused with the field's own range where its description has one (`ranges[i]`),
/// not the type's (0 to 4294967295).
#[inline(never)]
pub(crate) fn read_fields(
    v: &Value,
    keys: &[&str],
    ranges: &[Option<(f64, f64)>],
    slots: &mut [&mut dyn ReadInto],
) -> Result<(), FieldError> {
    let map = object(v, keys)?;
    for ((key, range), slot) in keys.iter().zip(ranges).zip(slots) {
        read_field(map, key, *slot).map_err(|mut e| {
            if let (Some((lo, hi)), true) = (range, e.field == *key) {
                if e.allowed.starts_with("a whole number") {
                    e.allowed = format!("an integer from {lo} to {hi}");
                } else if e.allowed == "a number" {
                    e.allowed = format!("a number from {lo} to {hi}");
                }
            }
            e
        })?;
    }
    Ok(())
}

/// Field `key` of `map` read as a `T`; None when missing or null.
pub(crate) fn field<T: FromJson>(
    map: &Map<String, Value>,
    key: &str,
) -> Result<Option<T>, FieldError> {
    // An `Option` read over None: `T::from_json` of the value, if there is one.
    let mut slot = None;
    read_field(map, key, &mut slot)?;
    Ok(slot)
}

/// Field `key` of `map`, which must be there (not null).
pub(crate) fn need<T: FromJson>(map: &Map<String, Value>, key: &str) -> Result<T, FieldError> {
    required(key, field(map, key)?)
}

/// Field `key` of `map`, or `default` when missing or null.
pub(crate) fn field_or<T: FromJson>(
    map: &Map<String, Value>,
    key: &str,
    default: T,
) -> Result<T, FieldError> {
    Ok(field(map, key)?.unwrap_or(default))
}

/// `got`, or an error naming the missing field.
pub(crate) fn required<T>(key: &str, got: Option<T>) -> Result<T, FieldError> {
    got.ok_or_else(|| FieldError {
        field: key.into(),
        value: "missing".into(),
        allowed: "a value: the field is required".into(),
    })
}

/// A document read as a `T`; an error about the whole of it is named `whole`.
pub fn read_document<T: FromJson>(v: &Value, whole: &str) -> Result<T, FieldError> {
    T::from_json(v).map_err(|mut e| {
        if e.field.is_empty() {
            e.field = whole.into();
        }
        e
    })
}

/// Largest JSON document accepted (a custom model of thousands of layers fits easily).
pub const MAX_JSON_BYTES: usize = 4 << 20;

/// What a JSON document is, for the errors `json_object_value` gives.
pub struct JsonDocument {
    /// Field name for errors about the document as a whole, e.g. "(document)".
    pub field: &'static str,
    /// What the document must be, e.g. "one JSON object: a Scenario".
    pub expected: &'static str,
}

impl JsonDocument {
    fn error(&self, value: String, allowed: String) -> FieldError {
        FieldError {
            field: self.field.into(),
            value,
            allowed,
        }
    }
}

/// One JSON object as a `serde_json::Value`, for documents read field by field (their
/// errors name the field path). A syntax error has serde_json's line and column;
/// documents over `MAX_JSON_BYTES` and other JSON values are refused.
pub fn json_object_value(text: &str, doc: &JsonDocument) -> Result<Value, FieldError> {
    if text.len() > MAX_JSON_BYTES {
        return Err(doc.error(
            format!("{} bytes", text.len()),
            format!("at most {MAX_JSON_BYTES} bytes of JSON"),
        ));
    }
    if !text.trim_start().starts_with('{') {
        return Err(doc.error("not a JSON object".into(), doc.expected.into()));
    }
    serde_json::from_str(text)
        .map_err(|e| doc.error(syntax_error_words(&e, text), doc.expected.into()))
}

/// A JSON syntax error in words, at serde_json's position: "unexpected `3` at line 2
/// column 2" (what stands there in `text`), or the text ending too early. Not serde_json's
/// own messages: their `Display`, with the io error texts it reaches, cost the page 1.2 kB
/// gzip; the command line prints them itself.
pub fn syntax_error_words(e: &serde_json::Error, text: &str) -> String {
    let (line, column) = (e.line(), e.column());
    // serde_json's column counts the line's bytes up to and including the one it stopped at.
    let found = text
        .lines()
        .nth(line.saturating_sub(1))
        .zip(column.checked_sub(1))
        .and_then(|(l, at)| l.get(at..)?.chars().next());
    let what = match found {
        Some(c) if !e.is_eof() => format!("unexpected `{c}`"),
        _ => "the text ends before the JSON does".into(),
    };
    format!("{what} at line {line} column {column}")
}

/// Field `$key` of `$map`: the value read, else its default, else (no default) an
/// error. One call per field (smaller wasm than a read and a check at each field).
macro_rules! or_default {
    ($map:expr, $key:expr) => {
        $crate::json::need($map, $key)?
    };
    ($map:expr, $key:expr, $default:expr) => {
        $crate::json::field_or($map, $key, $default)?
    };
}
pub(crate) use or_default;

/// A field's `[lo, hi]` as numbers, or None without one (`json_struct!`'s `RANGES`).
macro_rules! json_range {
    ($ty:ty;) => {
        None
    };
    ($ty:ty; $lo:expr, $hi:expr) => {{
        // Typed as the field's bound first, so `1 << 36` is a u64 as in `Bounded`.
        let (lo, hi): (
            <$ty as $crate::json::Bounded>::Bound,
            <$ty as $crate::json::Bounded>::Bound,
        ) = ($lo, $hi);
        Some((lo as f64, hi as f64))
    }};
}
pub(crate) use json_range;

/// A struct described once: `pub field: Type [lo, hi] = default,` per field (the range
/// is optional). See the module documentation for what follows from it.
macro_rules! json_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                pub $field:ident : $ty:ty $([$lo:expr, $hi:expr])? = $default:expr
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )*
        }

        impl $name {
            /// The JSON field names, in order.
            pub const FIELDS: &'static [&'static str] = &[$(stringify!($field)),*];
            /// Their ranges, where the description gives one.
            const RANGES: &'static [Option<(f64, f64)>] =
                &[$( $crate::json::json_range!($ty; $($lo, $hi)?) ),*];
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $( $field: $default, )* }
            }
        }

        impl $crate::json::FromJson for $name {
            fn from_json(
                v: &serde_json::Value,
            ) -> Result<Self, $crate::problems::FieldError> {
                // Defaults first, then each field read over its default.
                let mut out = Self::default();
                out.read_into(v)?;
                Ok(out)
            }

            fn read_into(
                &mut self,
                v: &serde_json::Value,
            ) -> Result<(), $crate::problems::FieldError> {
                $crate::json::read_fields(v, Self::FIELDS, Self::RANGES, &mut [
                    $( &mut self.$field as &mut dyn $crate::json::ReadInto, )*
                ])
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::json::read_document(&serde_json::Value::deserialize(d)?, "(document)")
                    .map_err(serde::de::Error::custom)
            }
        }

        impl $crate::json::ToJson for $name {
            fn to_json(&self) -> serde_json::Value {
                let mut map = serde_json::Map::new();
                $( $crate::json::put(&mut map, stringify!($field), &self.$field); )*
                serde_json::Value::Object(map)
            }
        }
        $crate::json::serialize_by_to_json!($name);

        impl $crate::json::Check for $name {
            fn check(&self, path: &str, p: &mut $crate::problems::Problems) {
                $(
                    $crate::json::Check::check_field(&self.$field, path, stringify!($field), p);
                    $( $crate::json::Bounded::bound(
                        &self.$field, path, stringify!($field), $lo, $hi, p,
                    ); )?
                )*
            }
        }
    };
}
pub(crate) use json_struct;

/// An enum of ids described once: `Variant = "id",` per variant. Gives `ALL`, `id`,
/// `from_id`, serde's reader, `FromJson` and `ToJson` (by id).
macro_rules! json_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $id:literal ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Deserialize)]
        pub enum $name {
            $( $(#[$vmeta])* #[serde(rename = $id)] $variant, )*
        }

        impl $name {
            pub const ALL: [$name; <[&str]>::len(&[$($id),*])] = [$($name::$variant),*];

            /// The JSON id (a table lookup, not a match).
            pub fn id(self) -> &'static str {
                const IDS: &[&str] = &[$($id),*];
                IDS[self as usize]
            }

            /// The variant with JSON id `id`.
            pub fn from_id(id: &str) -> Option<Self> {
                Self::ALL.into_iter().find(|c| c.id() == id)
            }
        }

        impl $crate::json::FromJson for $name {
            fn from_json(
                v: &serde_json::Value,
            ) -> Result<Self, $crate::problems::FieldError> {
                v.as_str().and_then(Self::from_id).ok_or_else(|| {
                    $crate::json::wrong(v, format!("one of {}", [$($id),*].join(", ")))
                })
            }
        }

        impl $crate::json::ToJson for $name {
            fn to_json(&self) -> serde_json::Value {
                self.id().into()
            }
        }
        $crate::json::serialize_by_to_json!($name);

        impl $crate::json::Check for $name {
            const LEAF: bool = true;
        }
    };
}
pub(crate) use json_enum;

/// Plain values: no checks of their own, and their field paths are never built.
macro_rules! leaves {
    ($($t:ty),*) => {$(
        impl Check for $t {
            const LEAF: bool = true;
        }
    )*};
}
leaves!(f64, bool, String, u8, u32, u64, usize);

impl<T: Check> Check for Option<T> {
    const LEAF: bool = T::LEAF;
    fn check(&self, path: &str, p: &mut Problems) {
        if let Some(v) = self {
            v.check(path, p);
        }
    }
}

impl<T: Check> Check for Vec<T> {
    const LEAF: bool = T::LEAF;
    fn check(&self, path: &str, p: &mut Problems) {
        for (i, v) in self.iter().enumerate() {
            v.check(&format!("{path}[{i}]"), p);
        }
    }
}

/// A field's allowed range, `[lo, hi]` in its description. The field's path
/// (`path.key`) is built only for a value out of range.
pub trait Bounded {
    type Bound;
    fn bound(&self, path: &str, key: &str, lo: Self::Bound, hi: Self::Bound, p: &mut Problems);
}

impl Bounded for f64 {
    type Bound = f64;
    fn bound(&self, path: &str, key: &str, lo: f64, hi: f64, p: &mut Problems) {
        if !self.is_finite() || *self < lo || *self > hi {
            p.range_f64(&join(path, key), *self, lo, hi);
        }
    }
}

impl Bounded for u32 {
    type Bound = u32;
    fn bound(&self, path: &str, key: &str, lo: u32, hi: u32, p: &mut Problems) {
        u64::from(*self).bound(path, key, lo.into(), hi.into(), p);
    }
}

impl Bounded for u64 {
    type Bound = u64;
    fn bound(&self, path: &str, key: &str, lo: u64, hi: u64, p: &mut Problems) {
        if *self < lo || *self > hi {
            p.range_u64(&join(path, key), *self, lo, hi);
        }
    }
}

impl<T: Bounded> Bounded for Option<T> {
    type Bound = T::Bound;
    fn bound(&self, path: &str, key: &str, lo: T::Bound, hi: T::Bound, p: &mut Problems) {
        if let Some(v) = self {
            v.bound(path, key, lo, hi, p);
        }
    }
}

impl<T: Bounded> Bounded for Vec<T>
where
    T::Bound: Copy,
{
    type Bound = T::Bound;
    fn bound(&self, path: &str, key: &str, lo: T::Bound, hi: T::Bound, p: &mut Problems) {
        for (i, v) in self.iter().enumerate() {
            v.bound(path, &format!("{key}[{i}]"), lo, hi, p);
        }
    }
}
