//! The exact `requestedSchema` `#[derive(Elicit)]` builds from Rust types.

use mrtr::Elicit;
use serde::Deserialize;
use serde_json::json;

fn schema<T: Elicit>() -> serde_json::Value {
    T::requested_schema()
}

#[test]
fn primitive_fields_map_to_their_json_types() {
    #[derive(Deserialize, Elicit)]
    #[allow(dead_code)]
    struct Primitives {
        name: String,
        ok: bool,
        count: u32,
        offset: i64,
        ratio: f64,
        weight: f32,
    }
    assert_eq!(
        schema::<Primitives>(),
        json!({
            "type": "object",
            "properties": {
                "name": { "type": "string" },
                "ok": { "type": "boolean" },
                "count": { "type": "integer" },
                "offset": { "type": "integer" },
                "ratio": { "type": "number" },
                "weight": { "type": "number" }
            },
            "required": ["name", "ok", "count", "offset", "ratio", "weight"]
        })
    );
}

#[test]
fn option_fields_are_left_out_of_required() {
    #[derive(Deserialize, Elicit)]
    #[allow(dead_code)]
    struct Contact {
        email: String,
        phone: Option<String>,
        age: Option<u8>,
    }
    assert_eq!(
        schema::<Contact>(),
        json!({
            "type": "object",
            "properties": {
                "email": { "type": "string" },
                "phone": { "type": "string" },
                "age": { "type": "integer" }
            },
            "required": ["email"]
        })
    );
}

#[test]
fn a_form_of_optional_fields_has_no_required_list() {
    #[derive(Deserialize, Elicit)]
    #[allow(dead_code)]
    struct Feedback {
        comment: Option<String>,
    }
    assert_eq!(
        schema::<Feedback>(),
        json!({ "type": "object", "properties": { "comment": { "type": "string" } } })
    );
}

#[test]
fn doc_comments_become_descriptions_and_attributes_override_them() {
    #[derive(Deserialize, Elicit)]
    #[allow(dead_code)]
    struct Deploy {
        /// Deployment target.
        ///
        /// Production needs a second approval.
        environment: String,
        /// Ignored: the attribute wins.
        #[elicit(title = "Ticket", description = "The change ticket")]
        ticket: String,
    }
    assert_eq!(
        schema::<Deploy>(),
        json!({
            "type": "object",
            "properties": {
                "environment": {
                    "type": "string",
                    "description": "Deployment target.\n\nProduction needs a second approval."
                },
                "ticket": { "type": "string", "title": "Ticket", "description": "The change ticket" }
            },
            "required": ["environment", "ticket"]
        })
    );
}

#[test]
fn string_constraints_and_formats_are_emitted() {
    #[derive(Deserialize, Elicit)]
    #[allow(dead_code)]
    struct Signup {
        #[elicit(format = "email")]
        email: String,
        #[elicit(format = "uri")]
        homepage: Option<String>,
        #[elicit(format = "date")]
        birthday: String,
        #[elicit(format = "date-time")]
        meeting: String,
        #[elicit(min_length = 3, max_length = 20)]
        handle: String,
    }
    assert_eq!(
        schema::<Signup>(),
        json!({
            "type": "object",
            "properties": {
                "email": { "type": "string", "format": "email" },
                "homepage": { "type": "string", "format": "uri" },
                "birthday": { "type": "string", "format": "date" },
                "meeting": { "type": "string", "format": "date-time" },
                "handle": { "type": "string", "minLength": 3, "maxLength": 20 }
            },
            "required": ["email", "birthday", "meeting", "handle"]
        })
    );
}

#[test]
fn number_bounds_keep_integers_integral() {
    #[derive(Deserialize, Elicit)]
    #[allow(dead_code)]
    struct Scale {
        #[elicit(min = -5, max = 5)]
        level: i32,
        #[elicit(min = 0.5, max = 2)]
        factor: f64,
    }
    let schema = schema::<Scale>();
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "level": { "type": "integer", "minimum": -5, "maximum": 5 },
                "factor": { "type": "number", "minimum": 0.5, "maximum": 2 }
            },
            "required": ["level", "factor"]
        })
    );
    assert!(schema["properties"]["level"]["minimum"].is_i64());
}

#[test]
fn serde_renames_decide_property_names() {
    #[derive(Deserialize, Elicit)]
    #[serde(rename_all = "camelCase")]
    #[allow(dead_code)]
    struct Profile {
        display_name: String,
        #[serde(rename = "e-mail")]
        email_address: String,
        #[serde(rename(deserialize = "tz", serialize = "timezone"))]
        time_zone: String,
        r#type: String,
    }
    assert_eq!(
        schema::<Profile>(),
        json!({
            "type": "object",
            "properties": {
                "displayName": { "type": "string" },
                "e-mail": { "type": "string" },
                "tz": { "type": "string" },
                "type": { "type": "string" }
            },
            "required": ["displayName", "e-mail", "tz", "type"]
        })
    );
}

#[test]
fn serde_default_fields_are_not_required_and_skipped_fields_are_not_asked() {
    #[derive(Deserialize, Elicit)]
    #[allow(dead_code)]
    struct Options {
        #[serde(default)]
        verbose: bool,
        #[serde(skip)]
        internal: u32,
        name: String,
    }
    assert_eq!(
        schema::<Options>(),
        json!({
            "type": "object",
            "properties": { "verbose": { "type": "boolean" }, "name": { "type": "string" } },
            "required": ["name"]
        })
    );
}

#[derive(Debug, PartialEq, Deserialize, Elicit)]
#[serde(rename_all = "snake_case")]
enum Environment {
    Staging,
    Production,
    #[serde(rename = "dev")]
    Development,
}

#[derive(Debug, PartialEq, Deserialize, Elicit)]
enum Size {
    #[elicit(title = "Small (1 vCPU)")]
    #[serde(rename = "s")]
    Small,
    #[elicit(title = "Large (8 vCPU)")]
    #[serde(rename = "l")]
    Large,
}

#[test]
fn untitled_enums_are_single_selects_with_serde_wire_values() {
    #[derive(Deserialize, Elicit)]
    #[allow(dead_code)]
    struct Target {
        /// Deployment target
        environment: Environment,
    }
    assert_eq!(
        schema::<Target>(),
        json!({
            "type": "object",
            "properties": {
                "environment": {
                    "type": "string",
                    "description": "Deployment target",
                    "enum": ["staging", "production", "dev"]
                }
            },
            "required": ["environment"]
        })
    );
}

#[test]
fn titled_enums_are_one_of_const_title() {
    #[derive(Deserialize, Elicit)]
    #[allow(dead_code)]
    struct Machine {
        size: Option<Size>,
    }
    assert_eq!(
        schema::<Machine>(),
        json!({
            "type": "object",
            "properties": {
                "size": {
                    "type": "string",
                    "oneOf": [{ "const": "s", "title": "Small (1 vCPU)" }, { "const": "l", "title": "Large (8 vCPU)" }]
                }
            }
        })
    );
}

#[test]
fn vec_of_enum_is_a_multi_select_with_item_bounds() {
    #[derive(Deserialize, Elicit)]
    #[allow(dead_code)]
    struct Rollout {
        #[elicit(min_items = 1, max_items = 2)]
        environments: Vec<Environment>,
        sizes: Vec<Size>,
    }
    assert_eq!(
        schema::<Rollout>(),
        json!({
            "type": "object",
            "properties": {
                "environments": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 2,
                    "items": { "type": "string", "enum": ["staging", "production", "dev"] }
                },
                "sizes": {
                    "type": "array",
                    "items": { "anyOf": [{ "const": "s", "title": "Small (1 vCPU)" }, { "const": "l", "title": "Large (8 vCPU)" }] }
                }
            },
            "required": ["environments", "sizes"]
        })
    );
}

#[test]
fn defaults_are_emitted_for_every_kind() {
    #[derive(Deserialize, Elicit)]
    #[allow(dead_code)]
    struct Defaults {
        #[elicit(default = "anonymous")]
        name: String,
        #[elicit(default = 3)]
        retries: u8,
        #[elicit(default = -1)]
        offset: i32,
        #[elicit(default = 0.25)]
        ratio: f64,
        #[elicit(default = false)]
        dry_run: bool,
        #[elicit(default = "production")]
        environment: Environment,
        #[elicit(default = ["staging", "dev"])]
        also: Vec<Environment>,
    }
    let schema = schema::<Defaults>();
    let defaults: Vec<_> = [
        "name",
        "retries",
        "offset",
        "ratio",
        "dry_run",
        "environment",
        "also",
    ]
    .iter()
    .map(|field| schema["properties"][field]["default"].clone())
    .collect();
    assert_eq!(
        defaults,
        vec![
            json!("anonymous"),
            json!(3),
            json!(-1),
            json!(0.25),
            json!(false),
            json!("production"),
            json!(["staging", "dev"])
        ]
    );
}

#[test]
fn derived_forms_decode_answers_with_the_same_names() {
    #[derive(Debug, PartialEq, Deserialize, Elicit)]
    #[serde(rename_all = "camelCase")]
    struct Answer {
        target_env: Environment,
        sizes: Vec<Size>,
    }
    let schema = schema::<Answer>();
    assert!(schema["properties"].get("targetEnv").is_some());
    let decoded: Answer =
        serde_json::from_value(json!({ "targetEnv": "dev", "sizes": ["s", "l"] })).unwrap();
    assert_eq!(
        decoded,
        Answer {
            target_env: Environment::Development,
            sizes: vec![Size::Small, Size::Large]
        }
    );
}

#[test]
fn optional_multi_selects_are_not_required() {
    #[derive(Deserialize, Elicit)]
    #[allow(dead_code)]
    struct Notify {
        channels: Option<Vec<Environment>>,
    }
    assert_eq!(
        schema::<Notify>(),
        json!({
            "type": "object",
            "properties": {
                "channels": { "type": "array", "items": { "type": "string", "enum": ["staging", "production", "dev"] } }
            }
        })
    );
}

/// The runtime converts every input request into rmcp's model before it goes on the wire; a
/// derived schema rmcp could not model would fail there as an internal error.
#[test]
fn every_derived_shape_fits_rmcps_elicitation_schema() {
    #[derive(Deserialize, Elicit)]
    #[allow(dead_code)]
    struct Everything {
        /// Name
        #[elicit(
            title = "Name",
            min_length = 1,
            max_length = 20,
            format = "email",
            default = "a@b.co"
        )]
        name: String,
        #[elicit(min = -3, max = 3, default = 0)]
        level: i32,
        #[elicit(min = 0.5, max = 2.5, default = 1.5)]
        factor: f64,
        #[elicit(default = true)]
        ok: bool,
        #[elicit(default = "dev")]
        environment: Environment,
        size: Option<Size>,
        #[elicit(min_items = 1, max_items = 2, default = ["staging"])]
        environments: Vec<Environment>,
        sizes: Vec<Size>,
    }
    let schema = schema::<Everything>();
    let modelled: rmcp::model::ElicitationSchema = serde_json::from_value(schema.clone())
        .unwrap_or_else(|e| panic!("rmcp cannot model {schema}: {e}"));
    assert_eq!(modelled.properties.len(), 8);
    assert_eq!(modelled.required.as_ref().map(Vec::len), Some(7));
}
