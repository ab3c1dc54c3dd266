//! The JSON Schema of the scenario format, generated from the spec types (`airqueue schema`).

use super::spec::{QdiscConf, QdiscSpec, Scenario};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{json, Value};
use std::borrow::Cow;

impl JsonSchema for QdiscSpec {
    fn schema_name() -> Cow<'static, str> {
        "QdiscSpec".into()
    }

    /// `dev` and `name` sit beside `kind` and the discipline's parameters (tc's flat shape),
    /// so each variant of [`QdiscConf`] is extended with them. `QdiscConf` itself is a
    /// definition of its own: child qdiscs of classes (`classes[].qdisc`) refer to it.
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        generator.subschema_for::<QdiscConf>();
        let mut stab: Value = generator
            .subschema_for::<crate::qdisc::StabConf>()
            .to_value();
        if let Some(o) = stab.as_object_mut() {
            o.insert("description".into(), json!("A size table (`tc qdisc add … stab overhead 14 linklayer ethernet mpu 64 …`, tc-stab(8)): the length every packet is charged in this qdisc tree, computed from `skb->len` (the datagram plus the link's `link_header`) as the kernel does."));
        }
        let mut v: Value = generator
            .definitions()
            .get("QdiscConf")
            .cloned()
            .expect("QdiscConf is a definition");
        let extra = json!({
            "dev": {"type": "string", "description": "The egress interface, `<node>.<link>`, e.g. \"router.bottleneck\", or a virtual device's name (`virtual_devs`)."},
            "name": {"type": "string", "description": "Name used in result tables and `--set` paths; defaults to `dev`."},
            "stab": stab
        });
        if let Some(variants) = v.get_mut("oneOf").and_then(Value::as_array_mut) {
            for var in variants {
                if let Some(props) = var.get_mut("properties").and_then(Value::as_object_mut) {
                    for (k, p) in extra.as_object().unwrap() {
                        props.insert(k.clone(), p.clone());
                    }
                }
                if let Some(req) = var.get_mut("required").and_then(Value::as_array_mut) {
                    req.push(json!("dev"));
                }
            }
        }
        if let Some(o) = v.as_object_mut() {
            o.remove("$schema");
            o.remove("title");
            // Definitions live at the document root; the generator already holds them.
            o.remove("$defs");
            o.insert(
                "description".into(),
                json!("A queueing discipline on an egress interface, as `tc qdisc add dev <dev> root <kind> …`."),
            );
        }
        Schema::try_from(v).expect("qdisc schema is an object")
    }
}

/// The JSON Schema (draft 2020-12) of a scenario, pretty-printed.
pub fn scenario_schema() -> String {
    let schema = schemars::schema_for!(Scenario);
    serde_json::to_string_pretty(&schema).expect("schema serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_lists_every_section_and_qdisc_kind() {
        let s: Value = serde_json::from_str(&scenario_schema()).unwrap();
        let props = s["properties"].as_object().unwrap();
        for k in ["run", "nodes", "links", "qdiscs", "routes", "flows"] {
            assert!(props.contains_key(k), "schema misses {k}");
        }
        let text = scenario_schema();
        for kind in [
            "pfifo",
            "bfifo",
            "pfifo_head_drop",
            "pfifo_fast",
            "prio",
            "drr",
            "htb",
        ] {
            assert!(
                text.contains(&format!("\"{kind}\"")),
                "schema misses qdisc {kind}"
            );
        }
        assert_eq!(s["additionalProperties"], json!(false));
    }

    #[test]
    fn child_qdiscs_of_classes_refer_to_the_qdisc_definition() {
        let s: Value = serde_json::from_str(&scenario_schema()).unwrap();
        let q = &s["$defs"]["HtbClassConf"]["properties"]["qdisc"];
        assert_eq!(q["anyOf"][0]["$ref"], json!("#/$defs/QdiscConf"), "{q}");
        assert!(s["$defs"]["QdiscConf"]["oneOf"].as_array().unwrap().len() >= 7);
    }
}
