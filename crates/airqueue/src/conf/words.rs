//! serde's error text in the project's words: field paths that name list entries by their
//! `name` (`classes.voice.rate`, not `classes[2].rate`) and messages that say what to write
//! instead of `invalid type: string "3", expected u32`. No Rust or serde type name reaches
//! the user.

use serde_json::Value;
use serde_path_to_error::{Path, Segment};

/// The label of the `i`-th entry of a list: `.name` when the entry has a non-empty string
/// `key` (`name` for nested lists), else `[i]`.
pub fn entry_suffix(i: usize, v: &Value, key: &str) -> String {
    match v.get(key).and_then(Value::as_str) {
        Some(name) if !key.is_empty() && !name.is_empty() => format!(".{name}"),
        _ => format!("[{i}]"),
    }
}

/// `path` (relative to `root`) with list indexes replaced by the entries' names where the
/// entries have one, walking `root` alongside.
pub fn named_path(path: &Path, root: &Value) -> String {
    let mut out = String::new();
    let mut at = Some(root);
    for seg in path {
        match seg {
            Segment::Seq { index } => {
                let item = at.and_then(|v| v.get(*index));
                match item {
                    Some(v) => out.push_str(&entry_suffix(*index, v, "name")),
                    None => out.push_str(&format!("[{index}]")),
                }
                at = item;
            }
            Segment::Map { key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
                at = at.and_then(|v| v.get(key));
            }
            Segment::Enum { variant } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(variant);
                at = None;
            }
            Segment::Unknown => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push('?');
                at = None;
            }
        }
    }
    if let Some(rest) = out.strip_prefix('.') {
        return rest.to_string();
    }
    out
}

/// What a value serde did not expect is, in words (`the text "3"`, `a table`).
fn unexpected_words(u: &str) -> String {
    let u = u.trim();
    let ticked = |prefix: &str| {
        u.strip_prefix(prefix)
            .map(|r| r.trim().trim_matches('`').to_string())
    };
    if let Some(s) = u.strip_prefix("string ") {
        return format!("the text {s}");
    }
    if let Some(n) = ticked("integer ") {
        return n;
    }
    if let Some(n) = ticked("floating point ") {
        return n;
    }
    if let Some(b) = ticked("boolean ") {
        return b;
    }
    if let Some(c) = ticked("character ") {
        return format!("the text \"{c}\"");
    }
    match u {
        "map" => "a table".into(),
        "sequence" => "a list".into(),
        "null" | "unit value" | "unit" | "Option value" => "an empty value".into(),
        "byte array" => "raw bytes".into(),
        _ => u.trim_start_matches("a ").to_string(),
    }
}

/// The range of a Rust integer type, as a phrase; `None` if `t` is not one.
fn integer_words(t: &str) -> Option<String> {
    let (lo, hi): (i128, i128) = match t {
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" | "usize" => (0, u64::MAX.into()),
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => (i64::MIN.into(), i64::MAX.into()),
        _ => return None,
    };
    Some(format!("a whole number from {lo} to {hi}"))
}

/// What serde expected, in words.
fn expected_words(e: &str) -> String {
    let e = e.trim();
    if let Some(w) = integer_words(e) {
        return w;
    }
    if let Some(n) = e.strip_prefix("an array of length ") {
        return format!("a list of {n} values");
    }
    if let Some(n) = e
        .strip_prefix("a tuple of size ")
        .or_else(|| e.strip_prefix("a sequence of length "))
    {
        return format!("a list of {n} values");
    }
    if e.starts_with("struct ")
        || e.starts_with("a map")
        || e == "map"
        || e.starts_with("internally tagged enum")
    {
        return "a table (key = value pairs)".into();
    }
    if e == "map with a single key" {
        return "a table with exactly one key".into();
    }
    if e.starts_with("tuple struct ") || e.starts_with("a sequence") || e == "sequence" {
        return "a list".into();
    }
    if e.starts_with("enum ") || e.starts_with("variant identifier") || e == "unit variant" {
        return "one of the names listed in docs/scenario-reference.md".into();
    }
    match e {
        "f32" | "f64" => "a number".into(),
        "a string" | "a borrowed string" | "string" | "a character" | "char" => {
            "text in quotes".into()
        }
        "a boolean" | "bool" => "true or false".into(),
        "unit" => "nothing".into(),
        _ => e.to_string(),
    }
}

/// A hint on how to write the value, from what was given and what is wanted.
fn fix_hint(unexpected: &str, expected: &str) -> &'static str {
    let given_text = unexpected.trim().starts_with("string ");
    let wants_number = integer_words(expected.trim()).is_some()
        || matches!(expected.trim(), "f32" | "f64" | "a boolean" | "bool");
    let given_number = ["integer ", "floating point ", "boolean "]
        .iter()
        .any(|p| unexpected.trim().starts_with(p));
    let wants_text = matches!(
        expected.trim(),
        "a string" | "a borrowed string" | "string" | "a character" | "char"
    );
    if given_text && wants_number {
        "write it without quotes"
    } else if given_number && wants_text {
        "put it in quotes"
    } else if unexpected.trim().starts_with("floating point ") && integer_words(expected).is_some()
    {
        "write a whole number in range"
    } else if unexpected.trim().starts_with("integer `-") && integer_words(expected).is_some() {
        "write a number that is not negative"
    } else if expected.trim().starts_with("struct ") || expected.trim().starts_with("a map") {
        "write it as a table, e.g. { key = value }"
    } else if expected.contains("sequence") || expected.contains("array") {
        "write it as a list in brackets, e.g. [\"a\", \"b\"]"
    } else {
        "see docs/scenario-reference.md for what this key takes"
    }
}

/// serde's `msg` in the project's words. Messages serde did not write (our own units'
/// errors) come back unchanged.
pub fn plain_message(msg: &str) -> String {
    for prefix in ["invalid type: ", "invalid value: "] {
        let Some(rest) = msg.strip_prefix(prefix) else {
            continue;
        };
        // Split at the last ", expected " (the unexpected part may hold text with commas).
        let Some(cut) = rest.rfind(", expected ") else {
            continue;
        };
        let (unexpected, expected) = (&rest[..cut], &rest[cut + ", expected ".len()..]);
        let hint = fix_hint(unexpected, expected);
        return format!(
            "must be {}, not {}; {hint}",
            expected_words(expected),
            unexpected_words(unexpected)
        );
    }
    if let Some(rest) = msg.strip_prefix("invalid length ") {
        if let Some((n, expected)) = rest.split_once(", expected ") {
            return format!(
                "has {n} values but must be {}; give exactly that many",
                expected_words(expected)
            );
        }
    }
    if let Some(rest) = msg.strip_prefix("duplicate field `") {
        let field = rest.trim_end_matches('`');
        return format!("the key \"{field}\" is given twice; keep one");
    }
    if msg.starts_with("data did not match any variant of untagged enum") {
        return "is not in a form this key accepts; see docs/scenario-reference.md".into();
    }
    msg.to_string()
}

/// Words that must never reach a user: Rust and serde type names.
pub const TYPE_NAMES: &[&str] = &[
    "u8",
    "u16",
    "u32",
    "u64",
    "usize",
    "i8",
    "i16",
    "i32",
    "i64",
    "f32",
    "f64",
    "struct ",
    "enum ",
    "serde",
    "sequence",
    "unit value",
    "Option",
    "floating point",
    "invalid type",
    "invalid value",
    "newtype",
    "Vec<",
    "String",
];

/// Whether a problem's `message` (outside the quoted text it echoes and the scenario keys it
/// names in backticks, such as `u32`, tc's classifier) names a Rust or serde type: the project's
/// error contract (docs/limits.md) forbids it. Used by the loader's property tests and the
/// cargo-fuzz target (`fuzz/`); returns the offending word. The excerpt of the input that
/// a TOML syntax error shows (lines `12 | …` and `   | ^`) is the user's own text.
pub fn names_a_type(message: &str) -> Option<String> {
    let own_words: String = message
        .lines()
        .filter(|line| !is_source_excerpt(line))
        .collect::<Vec<_>>()
        .join("\n");
    let message = own_words.as_str();
    let outside = |text: &str, quote: char| -> String {
        text.split(quote)
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let unquoted = outside(&outside(message, '"'), '`');
    let words = [
        "u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "f32", "f64", "struct",
        "enum", "serde", "sequence",
    ];
    for token in unquoted.split(|c: char| !c.is_alphanumeric()) {
        if words.contains(&token) {
            return Some(token.to_string());
        }
    }
    [
        "floating point",
        "invalid type",
        "invalid value",
        "unit value",
    ]
    .iter()
    .find(|p| unquoted.contains(*p))
    .map(|p| p.to_string())
}

/// A line of the input excerpt in a TOML syntax error: `  |`, `3 | text`, `  | ^`.
fn is_source_excerpt(line: &str) -> bool {
    let rest = line
        .trim_start()
        .trim_start_matches(|c: char| c.is_ascii_digit());
    rest == "|" || rest.starts_with(" |") || rest.starts_with("| ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fuzzer's first find (fuzz/): a TOML syntax error echoes the input, which may hold
    /// anything; only the message's own words are checked.
    #[test]
    fn the_input_excerpt_of_a_syntax_error_is_not_our_words() {
        let m = "(file): not valid TOML: TOML parse error at line 1, column 1\n  |\n1 | x invalid type u32\n  | ^\ninvalid key-value pair, expected key\n";
        assert_eq!(names_a_type(m), None);
        assert_eq!(
            names_a_type("flows.f.count: invalid type: string"),
            Some("invalid type".into())
        );
        assert_eq!(names_a_type("x: expected u32"), Some("u32".into()));
    }

    #[test]
    fn a_quoted_number_is_explained_in_words() {
        let m = plain_message("invalid type: string \"3\", expected u32");
        assert_eq!(
            m,
            "must be a whole number from 0 to 4294967295, not the text \"3\"; write it without quotes"
        );
    }

    #[test]
    fn tables_lists_and_huge_numbers_lose_their_type_names() {
        for raw in [
            "invalid type: map, expected u32",
            "invalid type: sequence, expected struct HtbClassConf",
            "invalid value: map, expected map with a single key",
            "invalid type: floating point `1.8446744073709552e19`, expected u64",
            "invalid value: integer `-1`, expected u64",
            "invalid type: null, expected a string",
            "invalid length 3, expected an array of length 2",
            "invalid type: boolean `true`, expected f64",
        ] {
            let m = plain_message(raw);
            for w in TYPE_NAMES {
                assert!(!m.contains(w), "{raw} → {m} (contains {w:?})");
            }
        }
    }
}
