//! The reader's leaves and lists: `FromJson` for numbers, booleans, strings, `Option`
//! and `Vec` (the descriptions' types are read in `json.rs`).

use serde_json::Value;

use super::{wrong, FromJson};
use crate::problems::FieldError;

impl FromJson for f64 {
    const LIST: &'static str = "a list of numbers";
    fn from_json(v: &Value) -> Result<Self, FieldError> {
        v.as_f64().ok_or_else(|| wrong(v, "a number"))
    }
}

/// Whole numbers up to `max`.
fn whole(v: &Value, max: u64) -> Result<u64, FieldError> {
    // 64.0 and 1e3 are whole numbers too (what a script or a spreadsheet writes).
    let integral = || {
        v.as_f64()
            .filter(|x| x.fract() == 0.0 && *x >= 0.0 && *x <= max as f64)
    };
    v.as_u64()
        .or_else(|| integral().map(|x| x as u64))
        .filter(|n| *n <= max)
        .ok_or_else(|| {
            // A type's own limit (2^32 - 1 and up) says nothing to a user: no range then.
            let allowed = if max >= u64::from(u32::MAX) {
                "a whole number, 0 or more".to_string()
            } else {
                format!("a whole number from 0 to {max}")
            };
            wrong(v, allowed)
        })
}

macro_rules! whole_numbers {
    ($($t:ty),*) => {$(
        impl FromJson for $t {
            const LIST: &'static str = "a list of whole numbers";
            fn from_json(v: &Value) -> Result<Self, FieldError> {
                whole(v, <$t>::MAX as u64).map(|n| n as $t)
            }
        }
    )*};
}
whole_numbers!(u8, u32, u64, usize);

impl FromJson for bool {
    fn from_json(v: &Value) -> Result<Self, FieldError> {
        v.as_bool().ok_or_else(|| wrong(v, "true or false"))
    }
}

impl FromJson for String {
    const LIST: &'static str = "a list of strings";
    fn from_json(v: &Value) -> Result<Self, FieldError> {
        v.as_str()
            .map(String::from)
            .ok_or_else(|| wrong(v, "a string"))
    }
}

impl<T: FromJson> FromJson for Option<T> {
    fn from_json(v: &Value) -> Result<Self, FieldError> {
        match v {
            Value::Null => Ok(None),
            v => T::from_json(v).map(Some),
        }
    }
}

impl<T: FromJson> FromJson for Vec<T> {
    fn from_json(v: &Value) -> Result<Self, FieldError> {
        let mut out = Vec::new();
        each_item(v, T::LIST, &mut |item| {
            out.push(T::from_json(item)?);
            Ok(())
        })?;
        Ok(out)
    }
}

/// Each item of the list `v` (`list` says what it must be) passed to `read`, in order;
/// the first error stops, named `[i]`. The part of reading a `Vec<T>` that does not
/// depend on `T`, once for every `T`.
#[inline(never)]
fn each_item(
    v: &Value,
    list: &str,
    read: &mut dyn FnMut(&Value) -> Result<(), FieldError>,
) -> Result<(), FieldError> {
    let items = v.as_array().ok_or_else(|| wrong(v, list))?;
    for (i, item) in items.iter().enumerate() {
        read(item).map_err(|e| e.at(&format!("[{i}]")))?;
    }
    Ok(())
}
