//! Enums chosen by a `kind` key (`kind = "tbf"`, `kind = "tcp"`), with field paths in errors.
//!
//! serde's derived internally tagged enums buffer their content and lose the path of the
//! field that failed (`qdiscs.x` instead of `qdiscs.x.limit`). [`kind_enum!`](crate::kind_enum) declares such
//! an enum with one parameter struct per variant and a hand-made `Deserialize`: it reads
//! `kind`, then deserializes the rest into that variant's struct with
//! `serde_path_to_error`, and passes the inner path out inside the error message
//! ([`nested_error`]); the scenario parser joins it to the outer path. Nested kind enums
//! (an HTB class's child qdisc) compose: each level prepends its path. Serialization and
//! the JSON Schema stay serde's internally tagged shape (`{ kind = "tbf", rate = … }`).

use serde_json::{Map, Value};

/// Marks an error message that carries its own path: `\u{1}path\u{1}message`.
const MARK: char = '\u{1}';

/// An error at `path` (relative to the value being deserialized) that survives serde's
/// `custom` error channel.
pub fn nested_error<E: serde::de::Error>(path: &str, message: &str) -> E {
    E::custom(format!("{MARK}{path}{MARK}{message}"))
}

/// Splits a message made by [`nested_error`] into (path, message).
pub fn split_nested(msg: &str) -> Option<(&str, &str)> {
    let rest = msg.strip_prefix(MARK)?;
    rest.split_once(MARK)
}

/// Joins path segments with dots, skipping empty ones.
pub fn join_path(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}.{b}"),
    }
}

/// Turns serde's message and (inner) path into ours: `(path, message with a fix)`.
/// Unknown keys go into the path; nested paths from [`nested_error`] are joined.
pub fn problem_from_serde(prefix: &str, inner_path: &str, msg: &str) -> (String, String) {
    let inner_path = if inner_path == "." { "" } else { inner_path };
    let mut path = join_path(prefix, inner_path);
    if let Some((p, m)) = split_nested(msg) {
        return (join_path(&path, p), m.to_string());
    }
    if let Some(rest) = msg.strip_prefix("unknown field `") {
        if let Some((field, expected)) = rest.split_once('`') {
            // serde_path_to_error already ends the path with the unknown key.
            if !(inner_path == field || inner_path.ends_with(&format!(".{field}"))) {
                path = join_path(&path, field);
            }
            let expected = expected.trim_start_matches(", ");
            let expected = if expected.starts_with("there are no fields") {
                "this table takes no keys besides `kind`".to_string()
            } else {
                let keys = expected
                    .trim_start_matches("expected ")
                    .trim_start_matches("one of ");
                format!("use one of the keys {keys}")
            };
            return (
                path,
                format!("unknown key \"{field}\"; remove it or {expected}"),
            );
        }
    }
    if let Some(rest) = msg.strip_prefix("missing field `") {
        if let Some((field, _)) = rest.split_once('`') {
            return (
                join_path(&path, field),
                format!("is required; add `{field} = …`"),
            );
        }
    }
    if let Some(rest) = msg.strip_prefix("unknown variant `") {
        if let Some((v, expected)) = rest.split_once('`') {
            let expected = expected.trim_start_matches(", ");
            return (path, format!("\"{v}\" is not a known value; {expected}"));
        }
    }
    (path, super::words::plain_message(msg))
}

/// Deserializes the parameters of one variant from the object left after removing `kind`,
/// keeping the failing field's path.
pub fn content<T: serde::de::DeserializeOwned, E: serde::de::Error>(
    rest: Map<String, Value>,
) -> Result<T, E> {
    let value = Value::Object(rest);
    serde_path_to_error::deserialize::<_, T>(&value).map_err(|e| {
        let inner = super::words::named_path(e.path(), &value);
        let (path, msg) = problem_from_serde("", &inner, &e.inner().to_string());
        nested_error(&path, &msg)
    })
}

/// Takes `kind` out of a kind-enum table, or explains what is missing.
pub fn take_kind<E: serde::de::Error>(
    v: Value,
    what: &str,
    kinds: &[&str],
) -> Result<(String, Map<String, Value>), E> {
    let one_of = kinds
        .iter()
        .map(|k| format!("\"{k}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let Value::Object(mut m) = v else {
        return Err(nested_error(
            "",
            &format!("must be a table with a `kind` ({what}: {one_of})"),
        ));
    };
    match m.remove("kind") {
        Some(Value::String(k)) if kinds.contains(&k.as_str()) => Ok((k, m)),
        Some(Value::String(k)) => Err(nested_error(
            "kind",
            &format!("\"{k}\" is not a known {what}; use one of {one_of}"),
        )),
        Some(_) => Err(nested_error(
            "kind",
            &format!("must be a string naming the {what}: one of {one_of}"),
        )),
        None => Err(nested_error(
            "kind",
            &format!("is required; add `kind = …` naming the {what}: one of {one_of}"),
        )),
    }
}

/// Declares an enum selected by a `kind` key. Each variant wraps a parameter struct (with
/// `#[serde(deny_unknown_fields)]` and its defaults); `"tag" => Variant(Params)` gives the
/// `kind` string. Generates `kind()`, `KINDS`, serde `Serialize` (internally tagged), the
/// JSON Schema, and a `Deserialize` that reports the failing field's path.
#[macro_export]
macro_rules! kind_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident as $what:literal {
            $( $(#[$vmeta:meta])* $tag:literal => $variant:ident($ty:ty) ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
        #[serde(tag = "kind")]
        $vis enum $name {
            $( $(#[$vmeta])* #[serde(rename = $tag)] $variant($ty), )+
        }

        impl $name {
            /// Every `kind` this enum accepts.
            pub const KINDS: &'static [&'static str] = &[$($tag),+];

            /// The `kind` string of this value.
            pub fn kind(&self) -> &'static str {
                match self { $( $name::$variant(_) => $tag, )+ }
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let v = <serde_json::Value as serde::Deserialize>::deserialize(d)?;
                let (kind, rest) =
                    $crate::conf::kind_enum::take_kind::<D::Error>(v, $what, Self::KINDS)?;
                match kind.as_str() {
                    $( $tag => $crate::conf::kind_enum::content::<$ty, D::Error>(rest)
                        .map($name::$variant), )+
                    _ => unreachable!("take_kind checked the kind"),
                }
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    #[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct A {
        #[serde(default)]
        n: u32,
    }
    #[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct B {
        child: Box<Thing>,
    }

    kind_enum! {
        /// A test enum.
        enum Thing as "thing" {
            "a" => A(A),
            "b" => B(B),
        }
    }

    fn parse(v: serde_json::Value) -> Result<Thing, (String, String)> {
        serde_path_to_error::deserialize::<_, Thing>(v)
            .map_err(|e| problem_from_serde("x", &e.path().to_string(), &e.inner().to_string()))
    }

    #[test]
    fn round_trips_through_the_tagged_shape() {
        let t = parse(serde_json::json!({"kind": "a", "n": 3})).unwrap();
        assert!(matches!(t, Thing::A(A { n: 3 })));
        assert_eq!(
            serde_json::to_value(&t).unwrap(),
            serde_json::json!({"kind": "a", "n": 3})
        );
        assert_eq!(t.kind(), "a");
    }

    #[test]
    fn a_bad_field_is_reported_at_its_own_path() {
        let e = parse(serde_json::json!({"kind": "a", "n": "3"})).unwrap_err();
        assert_eq!(e.0, "x.n");
    }

    #[test]
    fn nested_kind_enums_join_their_paths() {
        let e =
            parse(serde_json::json!({"kind": "b", "child": {"kind": "a", "m": 1}})).unwrap_err();
        assert_eq!(e.0, "x.child.m");
        assert_eq!(
            e.1,
            "unknown key \"m\"; remove it or use one of the keys `n`"
        );
        let e = parse(serde_json::json!({"kind": "b", "child": {"kind": "z"}})).unwrap_err();
        assert_eq!(e.0, "x.child.kind");
        assert!(e.1.contains("\"a\", \"b\""), "{}", e.1);
    }

    #[test]
    fn a_missing_kind_names_the_choices() {
        let e = parse(serde_json::json!({"n": 1})).unwrap_err();
        assert_eq!(e.0, "x.kind");
        assert!(e.1.contains("thing"), "{}", e.1);
    }
}
