//! Reading JSON objects field by field from a `serde_json::Value`, for the documents whose
//! derived readers cost the web page too much of its download budget (measurements, layer
//! lists, the model choice). Every error names the field path and what is allowed;
//! `Fields::new` refuses unknown fields, and a missing or null field reads as None (its
//! default).

use serde_json::{Map, Value};

use crate::problems::FieldError;

/// One JSON object read field by field; errors name `prefix` + the field.
pub(crate) struct Fields<'a> {
    map: &'a Map<String, Value>,
    prefix: String,
}

impl<'a> Fields<'a> {
    /// The object `value`, refusing other values and fields not in `known`.
    pub(crate) fn new(
        value: &'a Value,
        prefix: String,
        known: &[&str],
    ) -> Result<Self, FieldError> {
        let fields = Fields::object(value, prefix)?;
        match fields
            .map
            .iter()
            .find(|(key, _)| !known.contains(&key.as_str()))
        {
            Some((key, v)) => Err(FieldError {
                field: format!("{}{key}", fields.prefix),
                value: format!("unknown field `{key}` = {v}"),
                allowed: format!("a known field: {}", known.join(", ")),
            }),
            None => Ok(fields),
        }
    }

    /// The object `value`, ignoring fields no one reads.
    pub(crate) fn object(value: &'a Value, prefix: String) -> Result<Self, FieldError> {
        match value.as_object() {
            Some(map) => Ok(Fields { map, prefix }),
            None => Err(FieldError {
                field: prefix.trim_end_matches('.').into(),
                value: value.to_string(),
                allowed: "a JSON object".into(),
            }),
        }
    }

    pub(crate) fn error(&self, key: &str, value: &Value, allowed: &str) -> FieldError {
        FieldError {
            field: format!("{}{key}", self.prefix),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }

    /// The field's value; None when missing or null.
    pub(crate) fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// Reads the field with `read`, which returns None for a value of the wrong type.
    pub(crate) fn read<T>(
        &self,
        key: &str,
        allowed: &str,
        read: impl Fn(&'a Value) -> Option<T>,
    ) -> Result<Option<T>, FieldError> {
        self.get(key)
            .map(|v| read(v).ok_or_else(|| self.error(key, v, allowed)))
            .transpose()
    }

    pub(crate) fn number(&self, key: &str) -> Result<Option<f64>, FieldError> {
        self.read(key, "a number", Value::as_f64)
    }

    pub(crate) fn whole(&self, key: &str, max: u64) -> Result<Option<u64>, FieldError> {
        let allowed = format!("a whole number from 0 to {max}");
        self.read(key, &allowed, |v| v.as_u64().filter(|n| *n <= max))
    }

    pub(crate) fn whole_u32(&self, key: &str) -> Result<Option<u32>, FieldError> {
        Ok(self.whole(key, u32::MAX.into())?.map(|n| n as u32))
    }

    /// Sets each slot whose field is present (read by `read`); a missing or null field
    /// keeps the slot.
    pub(crate) fn set_each<T, const N: usize>(
        &self,
        slots: [(&str, &mut T); N],
        read: impl Fn(&Self, &str) -> Result<Option<T>, FieldError>,
    ) -> Result<(), FieldError> {
        for (key, slot) in slots {
            if let Some(v) = read(self, key)? {
                *slot = v;
            }
        }
        Ok(())
    }

    pub(crate) fn numbers<const N: usize>(
        &self,
        slots: [(&str, &mut f64); N],
    ) -> Result<(), FieldError> {
        self.set_each(slots, Self::number)
    }

    pub(crate) fn counts<const N: usize>(
        &self,
        slots: [(&str, &mut u32); N],
    ) -> Result<(), FieldError> {
        self.set_each(slots, Self::whole_u32)
    }

    /// Lists of whole numbers: kernel sizes, shapes, axes.
    pub(crate) fn whole_list(&self, key: &str) -> Result<Option<Vec<u64>>, FieldError> {
        self.read(key, "a list of whole numbers", |v| {
            v.as_array()?.iter().map(Value::as_u64).collect()
        })
    }

    pub(crate) fn string_list(&self, key: &str) -> Result<Option<Vec<String>>, FieldError> {
        self.read(key, "a list of strings", |v| {
            v.as_array()?
                .iter()
                .map(|s| s.as_str().map(String::from))
                .collect()
        })
    }

    /// `got` (a field read above), or an error naming the missing field.
    pub(crate) fn need<T>(&self, key: &str, got: Option<T>) -> Result<T, FieldError> {
        got.ok_or_else(|| FieldError {
            field: format!("{}{key}", self.prefix),
            value: "missing".into(),
            allowed: "a value: the field is required".into(),
        })
    }

    pub(crate) fn bool(&self, key: &str) -> Result<Option<bool>, FieldError> {
        self.read(key, "true or false", Value::as_bool)
    }

    pub(crate) fn string(&self, key: &str) -> Result<Option<String>, FieldError> {
        self.read(key, "a string", |v| v.as_str().map(String::from))
    }

    pub(crate) fn list(&self, key: &str) -> Result<&'a [Value], FieldError> {
        Ok(self
            .read(key, "a list", |v| v.as_array().map(Vec::as_slice))?
            .unwrap_or_default())
    }

    /// One of `choices`, by the id `id` gives it.
    pub(crate) fn one_of<T: Copy>(
        &self,
        key: &str,
        choices: &[T],
        id: impl Fn(T) -> &'static str,
    ) -> Result<Option<T>, FieldError> {
        let ids: Vec<&str> = choices.iter().map(|c| id(*c)).collect();
        let allowed = format!("one of {}", ids.join(", "));
        self.read(key, &allowed, |v| {
            choices.iter().copied().find(|c| v.as_str() == Some(id(*c)))
        })
    }
}
