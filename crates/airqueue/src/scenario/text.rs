//! A scenario file's text read by the core (issue 37 item 4): the TOML parse and the
//! `--set` overrides that Python's loader (`python/airqueue/scenario.py`) did value by
//! value, which took most of `airqueue validate`'s time on a 10 000-host scenario.
//!
//! Python stays the reference: [`prepare_toml`] answers `None` whenever its answer could
//! differ from what Python's loader gives (syntax that TOML 1.1 added, which Python's
//! `tomllib` (TOML 1.0) refuses; a value JSON cannot hold, which Python turns into a
//! marker; an override path Python would refuse, whose message Python words), and the
//! caller then loads the file the Python way, so every message stays Python's own.

use serde_json::{Map, Value};

/// The top-level table of a sweep: taken out before the overrides, as Python's loader
/// does (the core never sees it; `airqueue run` runs the base point).
const SWEEP_SECTION: &str = "sweep";

/// The keys that name list entries in override paths, in the order Python tries them
/// (`NAME_KEYS` in scenario.py).
const NAME_KEYS: [&str; 3] = ["name", "dev", "node"];

/// Tables and lists nested this deep are left to Python, which replaces them with a
/// marker at 64 levels (`values.MAX_DEPTH`); no valid scenario comes near.
const MAX_DEPTH: usize = 48;

/// The scenario of TOML `text` with `overrides` ((dotted path, value) pairs, in order)
/// applied, as the JSON value the loader takes, and whether the file has a `[sweep]`
/// table (taken out); `None` where Python's loader must decide (see the module doc).
pub fn prepare_toml(text: &str, overrides: &[(String, Value)]) -> Option<(Value, bool)> {
    if beyond_toml_1_0(text) {
        return None;
    }
    let table: toml::Table = toml::from_str(text).ok()?;
    let mut data = Map::new();
    for (k, v) in table {
        data.insert(k, to_json(v, 1)?);
    }
    let sweep = data.remove(SWEEP_SECTION).is_some();
    let mut data = Value::Object(data);
    for (path, value) in overrides {
        let parts: Vec<&str> = path.split('.').collect();
        if path.is_empty() || parts.iter().any(|p| p.is_empty()) {
            return None;
        }
        set_path(&mut data, &parts, value)?;
    }
    Some((data, sweep))
}

/// A TOML value as JSON; `None` for what JSON cannot hold (dates and times, NaN and the
/// infinities: Python's loader names them with a marker) and for very deep nesting.
fn to_json(v: toml::Value, depth: usize) -> Option<Value> {
    Some(match v {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::from(i),
        toml::Value::Float(f) => Value::Number(serde_json::Number::from_f64(f)?),
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(_) => return None,
        toml::Value::Array(items) => {
            if depth >= MAX_DEPTH {
                return None;
            }
            Value::Array(
                items
                    .into_iter()
                    .map(|v| to_json(v, depth + 1))
                    .collect::<Option<_>>()?,
            )
        }
        toml::Value::Table(t) => {
            if depth >= MAX_DEPTH {
                return None;
            }
            let mut m = Map::new();
            for (k, v) in t {
                m.insert(k, to_json(v, depth + 1)?);
            }
            Value::Object(m)
        }
    })
}

/// `set_path` of scenario.py: sets `value` at the dotted path `parts`, list entries named
/// by `name`/`dev`/`node` (the longest run of parts that names one), or by index, `*` for
/// every entry; missing tables are created. `None` wherever Python raises (its message is
/// Python's to give).
fn set_path(data: &mut Value, parts: &[&str], value: &Value) -> Option<()> {
    let mut node = data;
    let mut i = 0;
    while i < parts.len() {
        let last = i == parts.len() - 1;
        if let Value::Array(items) = node {
            if parts[i] == "*" {
                if last {
                    return None;
                }
                for entry in items.iter_mut() {
                    set_path(entry, &parts[i + 1..], value)?;
                }
                return Some(());
            }
            let mut found = None;
            'longest: for j in (i + 1..=parts.len()).rev() {
                let candidate = parts[i..j].join(".");
                for (k, e) in items.iter().enumerate() {
                    if entry_key(e) == Some(candidate.as_str()) {
                        found = Some((k, j));
                        break 'longest;
                    }
                }
            }
            if found.is_none() {
                // Python's str.isdigit() also takes other scripts' digits: those are its.
                if !parts[i].bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let k = parts[i].parse::<usize>().ok()?;
                if k < items.len() {
                    found = Some((k, i + 1));
                }
            }
            let (k, j) = found?;
            if j == parts.len() {
                return None;
            }
            node = &mut items[k];
            i = j;
            continue;
        }
        let Value::Object(m) = node else {
            return None;
        };
        let key = parts[i];
        if last {
            m.insert(key.to_owned(), value.clone());
            return Some(());
        }
        node = m
            .entry(key.to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        i += 1;
    }
    Some(())
}

/// The name of a list entry in override paths (`_entry_key` of scenario.py).
fn entry_key(e: &Value) -> Option<&str> {
    let m = e.as_object()?;
    NAME_KEYS.iter().find_map(|k| m.get(*k)?.as_str())
}

/// Whether `text` may use what TOML 1.1 added to 1.0, which the core's parser reads and
/// Python's `tomllib` refuses: newlines and a trailing comma inside an inline table, the
/// `\e` and `\xHH` escapes, and (outside strings and comments) any non-ASCII character,
/// for the Unicode bare keys. Times without seconds come out as dates and go to Python
/// anyway. Conservative: a false alarm only costs the fast path.
fn beyond_toml_1_0(text: &str) -> bool {
    #[derive(PartialEq)]
    enum In {
        Code,
        Comment,
        Basic,
        Literal,
        MultiBasic,
        MultiLiteral,
    }
    let b = text.as_bytes();
    let mut state = In::Code;
    // Open brackets of values and headers: b'[' or b'{'.
    let mut open: Vec<u8> = Vec::new();
    // The last character of code that was not white space.
    let mut last = 0u8;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match state {
            In::Code => {
                if c >= 0x80 {
                    return true;
                }
                match c {
                    b'#' => state = In::Comment,
                    b'"' if b[i..].starts_with(b"\"\"\"") => {
                        state = In::MultiBasic;
                        i += 2;
                    }
                    b'"' => state = In::Basic,
                    b'\'' if b[i..].starts_with(b"'''") => {
                        state = In::MultiLiteral;
                        i += 2;
                    }
                    b'\'' => state = In::Literal,
                    b'[' | b'{' => open.push(c),
                    b']' => {
                        open.pop();
                    }
                    b'}' => {
                        if last == b',' {
                            return true;
                        }
                        open.pop();
                    }
                    b'\n' | b'\r' if open.last() == Some(&b'{') => return true,
                    _ => {}
                }
                if !c.is_ascii_whitespace() {
                    last = c;
                }
            }
            In::Comment => {
                if c == b'\n' {
                    state = In::Code;
                    continue; // the newline is code's (an inline table may not hold it)
                }
            }
            In::Basic | In::MultiBasic => {
                if c == b'\\' {
                    if matches!(b.get(i + 1), Some(b'e' | b'x')) {
                        return true;
                    }
                    i += 2;
                    continue;
                }
                if state == In::Basic && c == b'"' {
                    state = In::Code;
                    last = c;
                } else if state == In::MultiBasic && b[i..].starts_with(b"\"\"\"") {
                    // Up to two more quotes belong to the string (`""""` ends with one).
                    i += 3;
                    let mut extra = 0;
                    while extra < 2 && i < b.len() && b[i] == b'"' {
                        i += 1;
                        extra += 1;
                    }
                    state = In::Code;
                    last = b'"';
                    continue;
                }
            }
            In::Literal => {
                if c == b'\'' {
                    state = In::Code;
                    last = c;
                }
            }
            In::MultiLiteral => {
                if b[i..].starts_with(b"'''") {
                    i += 3;
                    let mut extra = 0;
                    while extra < 2 && i < b.len() && b[i] == b'\'' {
                        i += 1;
                        extra += 1;
                    }
                    state = In::Code;
                    last = b'\'';
                    continue;
                }
            }
        }
        i += 1;
    }
    false
}

/// The resolved scenario's JSON text `json` as TOML text exactly as Python's
/// `tomli_w.dumps(json.loads(json))` (tomli_w 1.2) writes it, which is what a run's
/// `scenario.toml` has always held: scalars first, then tables, an array of tables inline
/// when each entry fits a 100-character line, arrays one item a line indented by four,
/// floats as Python's `repr`. `None` when tomli_w would raise (a `null`).
pub fn resolved_toml(json: &str) -> Option<String> {
    let v: Ordered = serde_json::from_str(json).ok()?;
    let Ordered::Table(root) = v else {
        return None;
    };
    let mut out = String::with_capacity(json.len());
    write_table(&mut out, &root, "", false)?;
    Some(out)
}

/// A JSON value with its tables' keys in the order of the text (as Python's `json`
/// keeps them); serde_json's own map sorts them.
#[derive(Debug)]
enum Ordered {
    Null,
    Bool(bool),
    Int(String),
    Float(f64),
    Str(String),
    Array(Vec<Ordered>),
    Table(Vec<Entry>),
}

/// A key and its value in an [`Ordered`] table.
type Entry = (String, Ordered);

impl<'de> serde::Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> Result<Ordered, E> {
                Ok(Ordered::Null)
            }
            fn visit_none<E>(self) -> Result<Ordered, E> {
                Ok(Ordered::Null)
            }
            fn visit_bool<E>(self, b: bool) -> Result<Ordered, E> {
                Ok(Ordered::Bool(b))
            }
            fn visit_i64<E>(self, i: i64) -> Result<Ordered, E> {
                Ok(Ordered::Int(i.to_string()))
            }
            fn visit_u64<E>(self, u: u64) -> Result<Ordered, E> {
                Ok(Ordered::Int(u.to_string()))
            }
            fn visit_f64<E>(self, f: f64) -> Result<Ordered, E> {
                Ok(Ordered::Float(f))
            }
            fn visit_str<E>(self, s: &str) -> Result<Ordered, E> {
                Ok(Ordered::Str(s.to_owned()))
            }
            fn visit_string<E>(self, s: String) -> Result<Ordered, E> {
                Ok(Ordered::Str(s))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Ordered, A::Error> {
                let mut items = Vec::new();
                while let Some(v) = a.next_element()? {
                    items.push(v);
                }
                Ok(Ordered::Array(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Ordered, A::Error> {
                let mut entries: Vec<(String, Ordered)> = Vec::new();
                while let Some((k, v)) = a.next_entry::<String, Ordered>()? {
                    // A repeated key keeps its first place and its last value, as in a dict.
                    match entries.iter_mut().find(|(key, _)| *key == k) {
                        Some(e) => e.1 = v,
                        None => entries.push((k, v)),
                    }
                }
                Ok(Ordered::Table(entries))
            }
        }
        d.deserialize_any(V)
    }
}

const INDENT: &str = "    ";
const MAX_LINE_LENGTH: usize = 100;

/// `gen_table_chunks` of tomli_w.
fn write_table(
    out: &mut String,
    table: &[(String, Ordered)],
    name: &str,
    inside_aot: bool,
) -> Option<()> {
    let mut literals: Vec<(&str, &Ordered)> = Vec::new();
    // (key, table, whether it is an entry of an array of tables)
    let mut tables: Vec<(&str, &[Entry], bool)> = Vec::new();
    let mut scratch = String::new();
    for (k, v) in table {
        match v {
            Ordered::Table(t) => tables.push((k, t, false)),
            Ordered::Array(items) if is_aot(items) && !all_inline(items, &mut scratch)? => {
                for t in items {
                    if let Ordered::Table(t) = t {
                        tables.push((k, t, true));
                    }
                }
            }
            _ => literals.push((k, v)),
        }
    }
    let mut yielded = false;
    if inside_aot || (!name.is_empty() && (!literals.is_empty() || tables.is_empty())) {
        yielded = true;
        let (open, close) = if inside_aot {
            ("[[", "]]\n")
        } else {
            ("[", "]\n")
        };
        out.push_str(open);
        out.push_str(name);
        out.push_str(close);
    }
    if !literals.is_empty() {
        yielded = true;
        for (k, v) in literals {
            key_part(out, k);
            out.push_str(" = ");
            literal(out, v, 0)?;
            out.push('\n');
        }
    }
    for (k, t, in_aot) in tables {
        if yielded {
            out.push('\n');
        } else {
            yielded = true;
        }
        let mut display = String::with_capacity(name.len() + k.len() + 1);
        if !name.is_empty() {
            display.push_str(name);
            display.push('.');
        }
        key_part(&mut display, k);
        write_table(out, t, &display, in_aot)?;
    }
    Some(())
}

fn is_aot(items: &[Ordered]) -> bool {
    !items.is_empty() && items.iter().all(|v| matches!(v, Ordered::Table(_)))
}

/// Whether every entry of an array of tables fits one line (`is_suitable_inline_table`).
fn all_inline(items: &[Ordered], scratch: &mut String) -> Option<bool> {
    for t in items {
        let Ordered::Table(t) = t else {
            return Some(false);
        };
        scratch.clear();
        inline_table(scratch, t)?;
        // Python counts characters, not bytes.
        if INDENT.len() + scratch.chars().count() + 1 > MAX_LINE_LENGTH || scratch.contains('\n') {
            return Some(false);
        }
    }
    Some(true)
}

/// `format_literal` of tomli_w, appended to `out`.
fn literal(out: &mut String, v: &Ordered, nest: usize) -> Option<()> {
    match v {
        Ordered::Null => return None,
        Ordered::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Ordered::Int(i) => out.push_str(i),
        Ordered::Float(f) => out.push_str(&python_float_repr(*f)),
        Ordered::Str(s) => string(out, s),
        Ordered::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return Some(());
            }
            out.push_str("[\n");
            for (n, v) in items.iter().enumerate() {
                if n > 0 {
                    out.push_str(",\n");
                }
                for _ in 0..=nest {
                    out.push_str(INDENT);
                }
                literal(out, v, nest + 1)?;
            }
            out.push_str(",\n");
            for _ in 0..nest {
                out.push_str(INDENT);
            }
            out.push(']');
        }
        Ordered::Table(t) => inline_table(out, t)?,
    }
    Some(())
}

/// `format_inline_table` of tomli_w (values at nesting level 0, as it writes them).
fn inline_table(out: &mut String, t: &[(String, Ordered)]) -> Option<()> {
    if t.is_empty() {
        out.push_str("{}");
        return Some(());
    }
    out.push_str("{ ");
    for (n, (k, v)) in t.iter().enumerate() {
        if n > 0 {
            out.push_str(", ");
        }
        key_part(out, k);
        out.push_str(" = ");
        literal(out, v, 0)?;
    }
    out.push_str(" }");
    Some(())
}

/// `format_key_part`: bare when it can be.
fn key_part(out: &mut String, k: &str) {
    if !k.is_empty()
        && k.bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
    {
        out.push_str(k);
    } else {
        string(out, k);
    }
}

/// `format_string` (one line): a basic string, `"`, `\` and control characters but tab
/// escaped.
fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '\u{8}' => out.push_str("\\b"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\t' => out.push('\t'),
            c if (c as u32) < 32 || c as u32 == 127 => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Python's `repr(float)`: the shortest digits that read back as `f`, positional from
/// 1e-4 up to 1e16, else scientific with a signed exponent of at least two digits.
fn python_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".to_owned();
    }
    if f.is_infinite() {
        return (if f < 0.0 { "-inf" } else { "inf" }).to_owned();
    }
    if f == 0.0 {
        return (if f.is_sign_negative() { "-0.0" } else { "0.0" }).to_owned();
    }
    // Rust's `{:e}` gives the shortest round-trip digits too: "-1.2345e-7".
    let e = format!("{f:e}");
    let (mantissa, exp) = e.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("an integer exponent");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let n = digits.len() as i32;
    let body = if (-4..16).contains(&exp) {
        if exp >= 0 {
            if n <= exp + 1 {
                format!("{digits}{}.0", "0".repeat((exp + 1 - n) as usize))
            } else {
                let (a, b) = digits.split_at((exp + 1) as usize);
                format!("{a}.{b}")
            }
        } else {
            format!("0.{}{digits}", "0".repeat((-exp - 1) as usize))
        }
    } else {
        let (a, b) = digits.split_at(1);
        let frac = if b.is_empty() {
            String::new()
        } else {
            format!(".{b}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{a}{frac}e{esign}{:02}", exp.abs())
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Python 3.11's `repr` of each float (typed into the interpreter).
    #[test]
    fn floats_read_as_python_writes_them() {
        for (f, want) in [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (9999999999999998.0, "9999999999999998.0"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1.2345e-7, "1.2345e-07"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (1e300, "1e+300"),
            (100.0, "100.0"),
            (0.5, "0.5"),
            (-0.0, "-0.0"),
            (5e-324, "5e-324"),
        ] {
            assert_eq!(python_float_repr(f), want, "{f}");
        }
    }

    /// tomli_w 1.2's output for this value (`tomli_w.dumps(json.loads(text))`, run once
    /// in Python and pasted).
    #[test]
    fn writes_what_tomli_w_writes() {
        let text = r#"{"description":"a \"q\"\n","run":{"duration":"1s","seed":3,"x":[]},
            "nodes":[{"name":"a"},{"name":"b","kind":"router"}],
            "flows":[{"name":"f","app":{"kind":"cbr","rate":"1Mbit","size":100},
                      "between":["a","b"],"w":1.5}],
            "big":[{"name":"n","long":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}],
            "empty":{}, "t":{"sub":{"k":1}}}"#;
        let want = "description = \"a \\\"q\\\"\\n\"\n\
nodes = [\n    { name = \"a\" },\n    { name = \"b\", kind = \"router\" },\n]\n\
\n[run]\nduration = \"1s\"\nseed = 3\nx = []\n\
\n[[flows]]\nname = \"f\"\nbetween = [\n    \"a\",\n    \"b\",\n]\nw = 1.5\n\
\n[flows.app]\nkind = \"cbr\"\nrate = \"1Mbit\"\nsize = 100\n\
\n[[big]]\nname = \"n\"\nlong = \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"\n\
\n[empty]\n\
\n[t.sub]\nk = 1\n";
        assert_eq!(resolved_toml(text).unwrap(), want);
        assert_eq!(resolved_toml(r#"{"a":null}"#), None);
    }

    #[test]
    fn overrides_follow_python_set_path() {
        let text = "[run]\nduration = \"1s\"\n[[links]]\nname = \"router.b\"\nrate = \"1Mbit\"\n\
                    [[flows]]\nname = \"f\"\n[[flows]]\nname = \"g\"\n[sweep]\nx = 1\n";
        let set = |p: &str, v: Value| (p.to_owned(), v);
        let (v, sweep) = prepare_toml(
            text,
            &[
                set("links.router.b.rate", json!("2Mbit")),
                set("flows.*.app.rate", json!("3Mbit")),
                set("flows.1.start", json!("1s")),
                set("run.new.deep", json!(1)),
            ],
        )
        .unwrap();
        assert!(sweep);
        assert_eq!(v["links"][0]["rate"], "2Mbit");
        assert_eq!(v["flows"][0]["app"]["rate"], "3Mbit");
        assert_eq!(v["flows"][1]["app"]["rate"], "3Mbit");
        assert_eq!(v["flows"][1]["start"], "1s");
        assert_eq!(v["run"]["new"]["deep"], 1);
        assert!(v.get("sweep").is_none());
        // What Python refuses is Python's to word.
        for bad in [
            "links.nope.rate",
            "flows.*",
            "links.router.b",
            "run.duration.x",
            "a..b",
        ] {
            assert!(prepare_toml(text, &[set(bad, json!(1))]).is_none(), "{bad}");
        }
    }

    #[test]
    fn toml_1_1_syntax_is_left_to_python() {
        for text in [
            "a = { b = 1,\n c = 2 }",
            "a = { b = 1, }",
            "a = \"\\e\"",
            "a = \"\\x41\"",
            "é = 1",
            "a = 1979-05-27",
            "a = nan",
        ] {
            assert!(prepare_toml(text, &[]).is_none(), "{text}");
        }
        for text in [
            "a = { b = [\n1,\n2] } # é\nc = \"é\\\\x\"\nd = '''\n}\n'''\ne = \"\"\"x\"\"\"\"\n",
            "[t]\nx = [ { a = 1 }, { a = 2 } ]",
        ] {
            assert!(prepare_toml(text, &[]).is_some(), "{text}");
        }
    }
}
