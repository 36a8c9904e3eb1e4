//! The legacy conformance fixtures' forms, built with the derive: SEP-1034 defaults and the
//! five SEP-1330 enum shapes, each asserted against the exact schema the suite checks.

use mrtr::Elicit;
use serde::Deserialize;
use serde_json::{Value, json};

/// `test_elicitation_sep1034_defaults`.
#[derive(Deserialize, Elicit)]
#[allow(dead_code)]
struct Sep1034Defaults {
    #[elicit(default = "John Doe")]
    name: String,
    #[elicit(default = 30)]
    age: i64,
    #[elicit(default = 95.5)]
    score: f64,
    #[elicit(default = "active")]
    status: Status,
    #[elicit(default = true)]
    verified: bool,
}

#[derive(Deserialize, Elicit)]
#[serde(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
    Pending,
}

/// `test_elicitation_sep1330_enums`.
#[derive(Deserialize, Elicit)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Sep1330Enums {
    untitled_single: Untitled,
    titled_single: Titled,
    legacy_enum: Legacy,
    untitled_multi: Vec<Untitled>,
    titled_multi: Vec<TitledChoice>,
}

#[derive(Deserialize, Elicit)]
#[serde(rename_all = "lowercase")]
enum Untitled {
    Option1,
    Option2,
    Option3,
}

#[derive(Deserialize, Elicit)]
#[serde(rename_all = "lowercase")]
enum Titled {
    #[elicit(title = "First Option")]
    Value1,
    #[elicit(title = "Second Option")]
    Value2,
    #[elicit(title = "Third Option")]
    Value3,
}

#[derive(Deserialize, Elicit)]
#[elicit(legacy_enum_names)]
#[serde(rename_all = "lowercase")]
enum Legacy {
    #[elicit(title = "Option One")]
    Opt1,
    #[elicit(title = "Option Two")]
    Opt2,
    #[elicit(title = "Option Three")]
    Opt3,
}

#[derive(Deserialize, Elicit)]
#[serde(rename_all = "lowercase")]
enum TitledChoice {
    #[elicit(title = "First Choice")]
    Value1,
    #[elicit(title = "Second Choice")]
    Value2,
    #[elicit(title = "Third Choice")]
    Value3,
}

fn property(schema: &Value, name: &str) -> Value {
    schema["properties"][name].clone()
}

#[test]
fn sep1034_string_default() {
    let schema = Sep1034Defaults::requested_schema();
    assert_eq!(
        property(&schema, "name"),
        json!({ "type": "string", "default": "John Doe" })
    );
}

#[test]
fn sep1034_integer_default() {
    let schema = Sep1034Defaults::requested_schema();
    assert_eq!(
        property(&schema, "age"),
        json!({ "type": "integer", "default": 30 })
    );
}

#[test]
fn sep1034_number_default() {
    let schema = Sep1034Defaults::requested_schema();
    assert_eq!(
        property(&schema, "score"),
        json!({ "type": "number", "default": 95.5 })
    );
}

#[test]
fn sep1034_enum_default_is_one_of_the_values() {
    let schema = Sep1034Defaults::requested_schema();
    assert_eq!(
        property(&schema, "status"),
        json!({ "type": "string", "enum": ["active", "inactive", "pending"], "default": "active" })
    );
}

#[test]
fn sep1034_boolean_default() {
    let schema = Sep1034Defaults::requested_schema();
    assert_eq!(
        property(&schema, "verified"),
        json!({ "type": "boolean", "default": true })
    );
}

#[test]
fn sep1034_answer_from_the_suite_decodes() {
    let content = json!({ "name": "Jane Smith", "age": 25, "score": 88.0, "status": "inactive", "verified": false });
    let decoded: Sep1034Defaults = serde_json::from_value(content).unwrap();
    assert_eq!(decoded.age, 25);
}

#[test]
fn sep1330_untitled_single_select() {
    let schema = Sep1330Enums::requested_schema();
    assert_eq!(
        property(&schema, "untitledSingle"),
        json!({ "type": "string", "enum": ["option1", "option2", "option3"] })
    );
}

#[test]
fn sep1330_titled_single_select() {
    let schema = Sep1330Enums::requested_schema();
    assert_eq!(
        property(&schema, "titledSingle"),
        json!({
            "type": "string",
            "oneOf": [
                { "const": "value1", "title": "First Option" },
                { "const": "value2", "title": "Second Option" },
                { "const": "value3", "title": "Third Option" }
            ]
        })
    );
}

#[test]
fn sep1330_legacy_enum_names() {
    let schema = Sep1330Enums::requested_schema();
    assert_eq!(
        property(&schema, "legacyEnum"),
        json!({
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"]
        })
    );
}

#[test]
fn sep1330_untitled_multi_select() {
    let schema = Sep1330Enums::requested_schema();
    assert_eq!(
        property(&schema, "untitledMulti"),
        json!({ "type": "array", "items": { "type": "string", "enum": ["option1", "option2", "option3"] } })
    );
}

#[test]
fn sep1330_titled_multi_select() {
    let schema = Sep1330Enums::requested_schema();
    assert_eq!(
        property(&schema, "titledMulti"),
        json!({
            "type": "array",
            "items": {
                "anyOf": [
                    { "const": "value1", "title": "First Choice" },
                    { "const": "value2", "title": "Second Choice" },
                    { "const": "value3", "title": "Third Choice" }
                ]
            }
        })
    );
}

#[test]
fn sep1330_answer_from_the_suite_decodes() {
    let content = json!({
        "untitledSingle": "option1",
        "titledSingle": "value1",
        "legacyEnum": "opt1",
        "untitledMulti": ["option1", "option2"],
        "titledMulti": ["value1", "value2"]
    });
    let decoded: Sep1330Enums = serde_json::from_value(content).unwrap();
    assert_eq!(decoded.untitled_multi.len(), 2);
}

/// Both forms also survive the conversion into rmcp's model that happens before the wire.
#[test]
fn conformance_forms_fit_rmcps_elicitation_schema() {
    for schema in [
        Sep1034Defaults::requested_schema(),
        Sep1330Enums::requested_schema(),
    ] {
        let modelled: rmcp::model::ElicitationSchema =
            serde_json::from_value(schema.clone()).unwrap();
        let round_trip = serde_json::to_value(modelled).unwrap();
        assert_eq!(round_trip, schema);
    }
}
