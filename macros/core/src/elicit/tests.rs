//! Unit tests of the derive's stages on token input.

use quote::quote;

fn expand(tokens: proc_macro2::TokenStream) -> String {
    super::derive(tokens).to_string()
}

/// The property names in an expansion: the first argument of each `.field("name", ..)` /
/// `.optional("name", ..)` call.
fn wire_names(out: &str) -> Vec<String> {
    out.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

#[test]
fn rename_all_rules_match_serde_for_fields() {
    let cases = [
        ("lowercase", "user_name"),
        ("UPPERCASE", "USER_NAME"),
        ("PascalCase", "UserName"),
        ("camelCase", "userName"),
        ("snake_case", "user_name"),
        ("SCREAMING_SNAKE_CASE", "USER_NAME"),
        ("kebab-case", "user-name"),
        ("SCREAMING-KEBAB-CASE", "USER-NAME"),
    ];
    for (rule, expected) in cases {
        let out = expand(quote! {
            #[serde(rename_all = #rule)]
            struct Form { user_name: String }
        });
        assert!(
            wire_names(&out).contains(&expected.to_owned()),
            "{rule}: {out}"
        );
    }
}

#[test]
fn rename_all_rules_match_serde_for_variants() {
    let cases = [
        ("lowercase", "inreview"),
        ("UPPERCASE", "INREVIEW"),
        ("PascalCase", "InReview"),
        ("camelCase", "inReview"),
        ("snake_case", "in_review"),
        ("SCREAMING_SNAKE_CASE", "IN_REVIEW"),
        ("kebab-case", "in-review"),
        ("SCREAMING-KEBAB-CASE", "IN-REVIEW"),
    ];
    for (rule, expected) in cases {
        let out = expand(quote! {
            #[serde(rename_all = #rule)]
            enum Status { InReview }
        });
        assert!(
            wire_names(&out).contains(&expected.to_owned()),
            "{rule}: {out}"
        );
    }
}

#[test]
fn serde_rename_and_raw_identifiers_name_the_wire() {
    let out = expand(quote! {
        struct Form {
            #[serde(rename(deserialize = "kind", serialize = "k"))]
            r#type: String,
            r#match: bool,
        }
    });
    let names = wire_names(&out);
    assert!(names.contains(&"kind".to_owned()), "{out}");
    assert!(names.contains(&"match".to_owned()), "{out}");
}

#[test]
fn unknown_rename_rules_are_left_to_serde() {
    let out = expand(quote! {
        #[serde(rename_all = "Title Case")]
        struct Form { user_name: String }
    });
    assert!(!out.contains("compile_error"), "{out}");
}

#[test]
fn a_misspelt_elicit_key_gets_a_suggestion() {
    let out = expand(quote! {
        struct Form {
            #[elicit(titel = "Name")]
            name: String,
        }
    });
    assert!(out.contains("title"), "{out}");
}

#[test]
fn a_valid_form_expands_without_compile_errors() {
    let out = expand(quote! {
        struct Deploy {
            /// Where to deploy.
            #[elicit(title = "Environment")]
            environment: String,
            #[elicit(min = 1, max = 10, default = 2)]
            replicas: u8,
        }
    });
    assert!(!out.contains("compile_error"), "{out}");
    assert!(out.contains("\"Where to deploy.\""), "{out}");
    assert!(
        out.contains(":: mrtr :: __private_v0_1_0 :: derive_elicit"),
        "{out}"
    );
}

#[test]
fn every_mistake_is_reported_in_one_expansion() {
    let out = expand(quote! {
        struct Bad {
            #[elicit(format = "phone")]
            a: String,
            #[elicit(colour = "red")]
            b: String,
            c: (u8, u8),
        }
    });
    assert_eq!(out.matches("compile_error").count(), 3, "{out}");
    // The fallback impl keeps the type usable so no cascade follows.
    assert!(out.contains("unreachable"), "{out}");
}

#[test]
fn a_generic_form_gets_no_fallback_impl() {
    let out = expand(quote! { struct Wrapper<T> { value: T } });
    assert!(out.contains("compile_error"), "{out}");
    assert!(!out.contains("unreachable"), "{out}");
}

#[test]
fn doc_comment_paragraphs_become_one_description() {
    let out = expand(quote! {
        struct Form {
            #[doc = " First line"]
            #[doc = " continues here."]
            #[doc = ""]
            #[doc = " Second paragraph."]
            field: String,
        }
    });
    assert!(
        out.contains(r#""First line continues here.\n\nSecond paragraph.""#),
        "{out}"
    );
}

#[test]
fn negative_bounds_and_defaults_are_numbers() {
    let out = expand(quote! {
        struct Offsets {
            #[elicit(min = -10, max = -1, default = -2)]
            offset: i32,
            #[elicit(min = -0.5)]
            ratio: f64,
        }
    });
    assert!(!out.contains("compile_error"), "{out}");
    assert!(out.contains("- 2i64") || out.contains("-2i64"), "{out}");
}
