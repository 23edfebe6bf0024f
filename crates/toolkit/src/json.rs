//! JSON text read as serde_json reads it, except that a key repeated in one object is refused.
//!
//! serde_json, like most JSON readers, keeps the last of two equal keys and says nothing, while
//! other readers keep the first: a proxy that allow-lists `{"tool": "read_file", "tool":
//! "delete"}` by its first `tool` would let the second run. [`parse`] refuses the text instead,
//! naming the key and where it stands. On text without repeated keys it returns exactly the
//! [`Value`] `serde_json::from_slice` returns (same numbers, strings, nesting limit and errors).
//!
//! ```
//! let value = editkit::json::parse(br#"{"tool": "read_file", "args": {"path": "a.txt"}}"#).unwrap();
//! assert_eq!(value["args"]["path"], "a.txt");
//!
//! let err = editkit::json::parse(br#"{"tool": "read_file", "args": {"path": "a", "path": "b"}}"#).unwrap_err();
//! assert_eq!(err.duplicate_path(), Some("args.path"));
//! ```

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Why JSON text was refused.
#[derive(Debug)]
#[non_exhaustive]
pub enum ParseError {
    /// Not JSON (syntax, invalid UTF-8, trailing characters, nesting deeper than 128), or a
    /// read error, as serde_json reports it.
    Syntax(serde_json::Error),
    /// A key appears twice in one object.
    DuplicateKey {
        /// The repeated key.
        key: String,
        /// Where it stands from the top: `args.path`, `edits[0].old`.
        path: String,
    },
}

impl ParseError {
    /// For a repeated key, where it stands (`args.path`).
    #[must_use]
    pub fn duplicate_path(&self) -> Option<&str> {
        match self {
            ParseError::DuplicateKey { path, .. } => Some(path),
            ParseError::Syntax(_) => None,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Syntax(err) => write!(f, "not valid JSON ({err})"),
            ParseError::DuplicateKey { key, path } => write!(
                f,
                "the key `{key}` appears more than once in the same object (at `{path}`); JSON readers disagree on \
                 which one counts, so nothing was run: send each key once"
            ),
        }
    }
}

impl std::error::Error for ParseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ParseError::Syntax(err) => Some(err),
            ParseError::DuplicateKey { .. } => None,
        }
    }
}

/// Parses JSON text like `serde_json::from_slice::<Value>`, refusing a key repeated in any
/// object at any depth.
///
/// # Errors
/// [`ParseError::DuplicateKey`] naming the first repeated key met; [`ParseError::Syntax`]
/// for text serde_json refuses.
pub fn parse(text: &[u8]) -> Result<Value, ParseError> {
    let found = RefCell::new(None);
    let mut reader = serde_json::Deserializer::from_slice(text);
    let parsed = Strict { found: &found }.deserialize(&mut reader).and_then(|value| reader.end().map(|()| value));
    match (parsed, found.into_inner()) {
        (Ok(value), _) => Ok(value),
        (Err(_), Some(mut segments)) => {
            segments.reverse();
            let key = match segments.last() {
                Some(Segment::Key(key)) => key.clone(),
                _ => String::new(),
            };
            Err(ParseError::DuplicateKey { key, path: render(&segments) })
        }
        (Err(err), None) => Err(ParseError::Syntax(err)),
    }
}

/// One step of the path to a repeated key.
enum Segment {
    Key(String),
    Index(usize),
}

fn render(segments: &[Segment]) -> String {
    let mut out = String::new();
    for segment in segments {
        match segment {
            Segment::Key(key) if out.is_empty() => out.push_str(key),
            Segment::Key(key) => {
                out.push('.');
                out.push_str(key);
            }
            Segment::Index(idx) => out.push_str(&format!("[{idx}]")),
        }
    }
    out
}

/// Builds a [`Value`]; on a repeated key it records the path (innermost first, each enclosing
/// container adding its step as the error passes through) and fails.
#[derive(Clone, Copy)]
struct Strict<'a> {
    found: &'a RefCell<Option<Vec<Segment>>>,
}

impl Strict<'_> {
    fn add_step(self, segment: Segment) {
        if let Some(segments) = self.found.borrow_mut().as_mut() {
            segments.push(segment);
        }
    }
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        loop {
            match seq.next_element_seed(self) {
                Ok(Some(item)) => items.push(item),
                Ok(None) => return Ok(Value::Array(items)),
                Err(err) => {
                    self.add_step(Segment::Index(items.len()));
                    return Err(err);
                }
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                let message = format!("duplicate key `{key}`");
                *self.found.borrow_mut() = Some(vec![Segment::Key(key)]);
                return Err(de::Error::custom(message));
            }
            match map.next_value_seed(self) {
                Ok(value) => {
                    object.insert(key, value);
                }
                Err(err) => {
                    self.add_step(Segment::Key(key));
                    return Err(err);
                }
            }
        }
        Ok(Value::Object(object))
    }
}
